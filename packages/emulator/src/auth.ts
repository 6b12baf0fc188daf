import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from './api-error.js';
import { TOKEN_TTL_SECONDS } from './options.js';
import type { TokenMode, TokenResponse } from './types.js';

export interface Workspace {
  id: string;
  mode: TokenMode;
}

interface IssuedToken {
  workspace: Workspace;
  expiresAtMs: number;
}

const KEY_SHAPE = /^sk_(test|live)_[A-Za-z0-9_]+$/;

export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' });
}

/** Issues 48 h bearer tokens for API keys and resolves them back to a workspace. */
export class TokenIssuer {
  private readonly tokens = new Map<string, IssuedToken>();
  issued = 0;

  constructor(
    private readonly apiKeys: ReadonlySet<string> | undefined,
    private readonly now: () => number,
  ) {}

  /** The same key always maps to the same workspace, so webhooks survive a token refresh. */
  workspaceFor(apiKey: string): Workspace {
    const digest = createHash('sha256').update(apiKey).digest('hex').slice(0, 24);
    return { id: `ws_${digest}`, mode: apiKey.startsWith('sk_test_') ? 'test' : 'live' };
  }

  exchange(apiKey: string | undefined): TokenResponse {
    if (apiKey === undefined || apiKey === '') throw unauthorized('No API key: send it in X-API-Key.');
    const known = this.apiKeys ? this.apiKeys.has(apiKey) : KEY_SHAPE.test(apiKey);
    if (!known || !KEY_SHAPE.test(apiKey)) throw unauthorized('The API key is invalid.');
    const workspace = this.workspaceFor(apiKey);
    const accessToken = `tok_${randomBytes(24).toString('hex')}`;
    const expiresAtMs = this.now() + TOKEN_TTL_SECONDS * 1000;
    this.tokens.set(accessToken, { workspace, expiresAtMs });
    this.issued += 1;
    return {
      access_token: accessToken,
      expires_at: new Date(expiresAtMs).toISOString(),
      expires_in: TOKEN_TTL_SECONDS,
      mode: workspace.mode,
      token_type: 'bearer',
      workspace_id: workspace.id,
    };
  }

  authenticate(authorization: string | undefined): Workspace {
    if (authorization === undefined || authorization.trim() === '') {
      throw unauthorized('No bearer token: send Authorization: Bearer <access_token>.');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const issued = match ? this.tokens.get(match[1]!) : undefined;
    if (!issued) throw unauthorized('The bearer token is invalid.');
    if (this.now() >= issued.expiresAtMs) {
      this.tokens.delete(match![1]!);
      throw unauthorized('The bearer token has expired: exchange the API key again.');
    }
    return issued.workspace;
  }
}
