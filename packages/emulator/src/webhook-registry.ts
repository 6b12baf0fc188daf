import { randomBytes } from 'node:crypto';
import type { Workspace } from './auth.js';
import { randomId } from './clock.js';
import type { WebhookOut } from './types.js';
import type { WebhookInput } from './validate-webhook.js';

export interface WebhookEntry {
  webhook: WebhookOut;
  workspace: Workspace;
  deleted: boolean;
}

/** The list response carries `secret`, but the spec presents the secret at creation only: it is masked. */
export function maskSecret(secret: string): string {
  return `whsec_${'*'.repeat(8)}${secret.slice(-4)}`;
}

export class WebhookRegistry {
  private readonly entries = new Map<string, WebhookEntry>();

  /**
   * `fixedSecret` (the `webhookSecret` option) is given instead of a random one to every webhook, or only to
   * those of the workspaces in `fixedFor` (the workspaces of `webhookSecretApiKeys`) when it is given.
   */
  constructor(
    private readonly fixedSecret?: string,
    private readonly fixedFor?: ReadonlySet<string>,
  ) {}

  create(workspace: Workspace, input: WebhookInput, now: Date): WebhookEntry {
    const webhook: WebhookOut = {
      id: randomId('wh'),
      object: 'webhook',
      url: input.url,
      events: input.events,
      active: true,
      created_at: now.toISOString(),
      description: input.description,
      secret: this.secretFor(workspace),
    };
    const entry = { webhook, workspace, deleted: false };
    this.entries.set(webhook.id, entry);
    return entry;
  }

  private secretFor(workspace: Workspace): string {
    if (this.fixedSecret !== undefined && (this.fixedFor === undefined || this.fixedFor.has(workspace.id))) {
      return this.fixedSecret;
    }
    return `whsec_${randomBytes(24).toString('base64url')}`;
  }

  /** Live webhooks, oldest first; only one workspace's when `workspaceId` is given. */
  list(workspaceId?: string): WebhookEntry[] {
    return [...this.entries.values()].filter(
      (e) => !e.deleted && (workspaceId === undefined || e.workspace.id === workspaceId),
    );
  }

  /** Deleted webhooks are still found here, so their delivery records stay readable. */
  find(id: string, workspaceId?: string): WebhookEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry || (workspaceId !== undefined && entry.workspace.id !== workspaceId)) return undefined;
    return entry;
  }

  delete(id: string, workspaceId: string): boolean {
    const entry = this.find(id, workspaceId);
    if (!entry || entry.deleted) return false;
    entry.deleted = true;
    entry.webhook.active = false;
    return true;
  }
}
