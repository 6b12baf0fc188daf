// The older majors are installed under aliases; they share the current major's types closely enough for tests.
declare module 'express4' {
  import express from 'express';
  export default express;
}
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}
