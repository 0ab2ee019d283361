/**
 * What each role may do in the console, with the reason shown beside a disabled action. The API enforces the
 * same rules (the tasks service's Management); this only keeps the UI honest about them.
 */
export type Role = 'admin' | 'developer' | 'operator';

export type Action =
  | 'toggleA2a'
  | 'togglePush'
  | 'editSettings'
  | 'createKey'
  | 'revokeKey'
  | 'promoteVersion'
  | 'useApplications'
  | 'readAudit';

const WRITE: readonly Role[] = ['admin', 'developer'];

const RULES: Readonly<Record<Action, { roles: readonly Role[]; reason: string }>> = {
  toggleA2a: { roles: ['admin'], reason: 'Enabling A2A requires the Admin role' },
  togglePush: { roles: ['operator'], reason: 'Push notifications are enabled by the platform operator' },
  editSettings: { roles: ['admin', 'developer', 'operator'], reason: '' },
  createKey: { roles: WRITE, reason: 'Creating API keys needs the Admin or Developer role' },
  revokeKey: { roles: WRITE, reason: 'Revoking API keys needs the Admin or Developer role' },
  promoteVersion: { roles: WRITE, reason: 'Promoting a version needs the Admin or Developer role' },
  useApplications: { roles: WRITE, reason: 'Link reports need the Admin or Developer role' },
  readAudit: { roles: ['admin'], reason: 'The audit log is for the Admin role' },
};

/** Undefined when the role may do it; otherwise why not (shown to the user). */
export function deniedReason(role: Role, action: Action, context: { agentType?: string } = {}): string | undefined {
  const rule = RULES[action];
  if (!rule.roles.includes(role)) return rule.reason;
  if (action === 'toggleA2a' && context.agentType !== undefined && context.agentType !== 'AI Agent')
    return 'A2A is available only for AI Agents';
  return undefined;
}

export const ROLE_LABELS: Readonly<Record<Role, string>> = {
  admin: 'Admin',
  developer: 'Developer',
  operator: 'Platform operator',
};
