import { optionError } from '@sms-webhooks/internal';
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

/**
 * The HTTP events Lambda is invoked with: API Gateway REST APIs (payload 1.0, as are HTTP APIs set to 1.0),
 * HTTP APIs (payload 2.0), Function URLs (the 2.0 shape, `LambdaFunctionURLEvent` in @types/aws-lambda)
 * and Application Load Balancers (with or without multi-value headers).
 */
export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | ALBEvent;

/** The answer in the shape the event's source reads back. */
export type LambdaHttpResult = APIGatewayProxyResult | APIGatewayProxyStructuredResultV2 | ALBResult;

type Headers1 = Record<string, string | undefined> | null | undefined;
type MultiHeaders1 = Record<string, string[] | undefined> | null | undefined;

/** What every source says about a request, read from whichever fields it uses. */
export interface HttpRequestParts {
  method: string;
  /** Each header with every value it came with, names as the source spelled them. */
  headers: [name: string, value: string][];
  body: string | null | undefined;
  isBase64Encoded: boolean;
  /** Which shape to answer in. */
  source: 'v1' | 'v2' | 'alb';
  /** ALB with multi-value headers on answers with `multiValueHeaders` only. */
  multiValue: boolean;
  /** API Gateway's path parameters (`/webhooks/sms/{tenant}`); ALB has none. */
  params: Record<string, string | undefined> | undefined;
  path: string | undefined;
}

function isV2(event: LambdaHttpEvent): event is APIGatewayProxyEventV2 {
  return (event as APIGatewayProxyEventV2).version === '2.0';
}

function isAlb(event: LambdaHttpEvent): event is ALBEvent {
  return (event as ALBEvent).requestContext?.elb !== undefined;
}

function entries(single: Headers1, multi: MultiHeaders1): [string, string][] {
  // REST APIs send both: `headers` keeps only the last of a repeated header, `multiValueHeaders` all of them.
  if (multi) {
    return Object.entries(multi).flatMap(([name, values]) =>
      (values ?? []).map((value): [string, string] => [name, value]),
    );
  }
  return Object.entries(single ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [[name, value] as [string, string]],
  );
}

export function readEvent(event: LambdaHttpEvent): HttpRequestParts {
  if (event === null || typeof event !== 'object') {
    // No HTTP client can send a non-object: the function is wired to something other than HTTP.
    throw optionError(
      '@sms-webhooks/lambda',
      `the handler was invoked with ${event === null ? 'null' : typeof event}, not an HTTP event: give the function an API Gateway, Function URL or ALB trigger.`,
      'ERR_SMS_LAMBDA_OPTIONS',
    );
  }
  if (isV2(event)) {
    const headers = entries(event.headers, undefined);
    // Payload 2.0 moves the cookie header into its own array.
    if (event.cookies?.length) headers.push(['cookie', event.cookies.join('; ')]);
    return {
      method: event.requestContext?.http?.method ?? '',
      headers,
      body: event.body,
      isBase64Encoded: event.isBase64Encoded === true,
      source: 'v2',
      multiValue: false,
      params: event.pathParameters ?? undefined,
      path: event.rawPath,
    };
  }
  const alb = isAlb(event);
  return {
    method: event.httpMethod ?? '',
    headers: entries(event.headers, event.multiValueHeaders),
    body: event.body,
    isBase64Encoded: event.isBase64Encoded === true,
    source: alb ? 'alb' : 'v1',
    multiValue: alb && event.multiValueHeaders != null,
    params: alb ? undefined : ((event as APIGatewayProxyEvent).pathParameters ?? undefined),
    path: event.path,
  };
}
