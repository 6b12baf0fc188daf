import type { ALBEvent, APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';

// The event shapes AWS documents for each source, with the request's method, headers and body put in:
// API Gateway's "Input format of a Lambda function for proxy integration" (REST, payload 1.0) and
// "Working with AWS Lambda proxy integrations for HTTP APIs" (payload 2.0), Lambda's "Invoking Lambda
// function URLs" (the 2.0 shape), and Elastic Load Balancing's "Lambda functions as targets".

export interface RequestInput {
  method?: string;
  headers: Record<string, string>;
  body: string;
  base64?: boolean;
}

function encode({ body, base64 }: RequestInput): string {
  return base64 ? Buffer.from(body, 'utf8').toString('base64') : body;
}

/**
 * REST API (payload 1.0): header names as the client sent them; `headers` keeps the last value of a
 * repeated header, `multiValueHeaders` all of them. `repeat` adds values after the first.
 */
export function restApiEvent(
  input: RequestInput,
  repeat: Record<string, string[]> = {},
): APIGatewayProxyEvent {
  const method = input.method ?? 'POST';
  const headers: Record<string, string> = {
    Host: 'id.execute-api.us-east-1.amazonaws.com',
    ...input.headers,
  };
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers))
    multiValueHeaders[name] = [value, ...(repeat[name] ?? [])];
  for (const [name, values] of Object.entries(repeat)) headers[name] = values.at(-1) ?? headers[name]!;
  return {
    resource: '/webhooks/sms',
    path: '/webhooks/sms',
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'id',
      authorizer: null,
      domainName: 'id.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'id',
      extendedRequestId: 'request-id',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '192.0.2.1',
        user: null,
        userAgent: 'sms-webhooks-service',
        userArn: null,
      },
      path: '/webhooks/sms',
      protocol: 'HTTP/1.1',
      requestId: 'id=',
      requestTime: '04/Mar/2020:19:15:17 +0000',
      requestTimeEpoch: 1583349317135,
      resourceId: 'abc123',
      resourcePath: '/webhooks/sms',
      stage: '$default',
    },
    pathParameters: null,
    stageVariables: null,
    body: encode(input),
    isBase64Encoded: input.base64 === true,
  };
}

/**
 * HTTP API (payload 2.0): header names in lower case, a repeated header's values joined with commas,
 * cookies in their own array.
 */
export function httpApiEvent(
  input: RequestInput,
  domainName = 'id.execute-api.us-east-1.amazonaws.com',
): APIGatewayProxyEventV2 {
  const method = input.method ?? 'POST';
  const headers = Object.fromEntries(
    Object.entries({ host: domainName, ...input.headers }).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/webhooks/sms',
    rawQueryString: '',
    cookies: ['session=abc'],
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api-id',
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method,
        path: '/webhooks/sms',
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.1',
        userAgent: 'sms-webhooks-service',
      },
      requestId: 'id',
      routeKey: '$default',
      stage: '$default',
      time: '12/Mar/2020:19:03:58 +0000',
      timeEpoch: 1583348638390,
    },
    body: encode(input),
    isBase64Encoded: input.base64 === true,
  };
}

/** A Function URL's event: the 2.0 shape, from a `lambda-url` domain. */
export function functionUrlEvent(input: RequestInput): APIGatewayProxyEventV2 {
  return httpApiEvent(input, 'abcdefghijklmnopqrstuvwxyz0123.lambda-url.us-west-2.on.aws');
}

/**
 * ALB: names in lower case; with multi-value headers on, only `multiValueHeaders` (every value), else only
 * `headers` (the last value of a repeated header).
 */
export function albEvent(
  input: RequestInput,
  multiValue: boolean,
  repeat: Record<string, string[]> = {},
): ALBEvent {
  const lower = Object.fromEntries(
    Object.entries({ host: 'lambda-alb-123578498.us-east-1.elb.amazonaws.com', ...input.headers }).map(
      ([name, value]) => [name.toLowerCase(), value],
    ),
  );
  const repeated = Object.fromEntries(Object.entries(repeat).map(([n, v]) => [n.toLowerCase(), v]));
  const event: ALBEvent = {
    requestContext: {
      elb: {
        targetGroupArn:
          'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/lambda-279XGJDqGZ5rsrHC2Fjr/49e9d65c45c6791a',
      },
    },
    httpMethod: input.method ?? 'POST',
    path: '/webhooks/sms',
    body: encode(input),
    isBase64Encoded: input.base64 === true,
  };
  if (multiValue) {
    event.multiValueQueryStringParameters = {};
    event.multiValueHeaders = Object.fromEntries(
      Object.entries(lower).map(([name, value]) => [name, [value, ...(repeated[name] ?? [])]]),
    );
  } else {
    event.queryStringParameters = {};
    event.headers = Object.fromEntries(
      Object.entries(lower).map(([name, value]) => [name, repeated[name]?.at(-1) ?? value]),
    );
  }
  return event;
}
