// @sms-webhooks/internal is bundled into each package's build (tsup's noExternal) and never published:
// a packed package.json must not name it, or npm would look for it. test/packaging checks the tarballs.
module.exports = {
  hooks: {
    beforePacking(pkg) {
      if (pkg.devDependencies) {
        delete pkg.devDependencies['@sms-webhooks/internal'];
        if (Object.keys(pkg.devDependencies).length === 0) delete pkg.devDependencies;
      }
      return pkg;
    },
  },
};
