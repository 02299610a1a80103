/** The spec's error codes (7.2) and their statuses: the one table. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unsafe_url: 400,
  unauthorized: 401,
  credits_exhausted: 402,
  model_not_allowed: 402,
  agent_limit_reached: 402,
  agent_paused: 402,
  storage_limit_reached: 402,
  api_not_in_plan: 402,
  clients_not_in_plan: 402,
  integrations_not_in_plan: 402,
  forbidden: 403,
  high_risk_use_case: 403,
  workspace_stopped: 403,
  not_found: 404,
  key_limit_reached: 409,
  already_corrected: 409,
  agent_busy: 409,
  file_too_large: 413,
  unsupported_file_type: 415,
  fetch_failed: 422,
  asked_with_file: 422,
  retrain_limit_reached: 429,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetail {
  field: string;
  message: string;
}

/** The one error type. Domain code throws it; http/error-handler.ts renders it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** Extra response headers, such as Retry-After. */
  readonly headers: Record<string, string>;
  /**
   * Whether the request was refused before it did any work (asked a model,
   * read a file, sent a mail): the visitor limits give such a request's counts
   * back. An invalid request (400) is, unless marked afterWork(); any other
   * refusal is not, unless marked beforeWork() (an unknown conversation).
   */
  refusedBeforeWork: boolean;
  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = [], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.refusedBeforeWork = ERROR_STATUS[code] === 400;
  }
  /** This refusal came before the request did any work. */
  beforeWork(): this {
    this.refusedBeforeWork = true;
    return this;
  }
  /** This refusal came after the request did work (a file read): it uses the budgets like an answer. */
  afterWork(): this {
    this.refusedBeforeWork = false;
    return this;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Named constructors, so call sites read as the rule they apply. */
export const errors = {
  invalid: (message: string, details: ErrorDetail[] = []) => new ApiError('invalid_request', message, details),
  invalidField: (field: string, message: string) => new ApiError('invalid_request', message, [{ field, message }]),
  unsafeUrl: (message = 'That address is not on the public internet.') => new ApiError('unsafe_url', message),
  unauthorized: (message = 'The API key is missing, malformed or revoked.') => new ApiError('unauthorized', message),
  creditsExhausted: () => new ApiError('credits_exhausted', 'The workspace has used all its credits for this month.'),
  modelNotAllowed: (model: string) => new ApiError('model_not_allowed', `The plan does not include the model "${model}".`, [{ field: 'model', message: 'not in plan' }]),
  agentLimitReached: () => new ApiError('agent_limit_reached', 'The plan has no room for another agent.'),
  agentPaused: () => new ApiError('agent_paused', 'This agent is beyond what the plan covers and is paused.'),
  storageLimitReached: () => new ApiError('storage_limit_reached', "This would take the agent past its storage allowance."),
  apiNotInPlan: () => new ApiError('api_not_in_plan', 'The plan does not include the API and MCP (Studio and up).'),
  clientsNotInPlan: () => new ApiError('clients_not_in_plan', 'The plan has no clients (Agency and up).'),
  integrationsNotInPlan: () => new ApiError('integrations_not_in_plan', 'The plan has no integrations (Studio and up).'),
  forbidden: (message = "The key's scope does not allow this.") => new ApiError('forbidden', message),
  highRiskUseCase: () => new ApiError('high_risk_use_case', 'Recruitment, credit scoring and healthcare are only available on the top plan.', [{ field: 'useCase', message: 'high-risk use case' }]),
  workspaceStopped: () => new ApiError('workspace_stopped', 'The operator stopped this workspace.'),
  notFound: (what = 'resource') => new ApiError('not_found', `No ${what} with that id is visible to this key.`),
  routeNotFound: (method: string, url: string) => new ApiError('not_found', `No route ${method} ${url}.`),
  keyLimitReached: () => new ApiError('key_limit_reached', 'The workspace holds its maximum of 25 keys.'),
  alreadyCorrected: () => new ApiError('already_corrected', 'That answer already has a correction.'),
  agentBusy: () => new ApiError('agent_busy', 'The agent is still learning something; try again when it is done.'),
  fileTooLarge: (message: string) => new ApiError('file_too_large', message),
  unsupportedFileType: (message: string) => new ApiError('unsupported_file_type', message),
  fetchFailed: (message: string) => new ApiError('fetch_failed', message),
  askedWithFile: () => new ApiError('asked_with_file', 'That answer was to a question with a file, which a Q&A pair cannot carry.'),
  retrainLimitReached: (retryAfterSeconds: number) =>
    new ApiError('retrain_limit_reached', 'The agent was retrained as often as allowed today; retry the next UTC day.', [], {
      'retry-after': String(retryAfterSeconds),
    }),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError('rate_limited', `Too many requests; wait ${retryAfterSeconds} seconds.`, [], { 'retry-after': String(retryAfterSeconds) }),
  internal: () => new ApiError('internal_error', 'Something went wrong on our side; retrying later is reasonable.'),
};
