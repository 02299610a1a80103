import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.ts';
import { requireScope, scopeAllows, type KeyCaller } from '../domain/principal.ts';
import { targetOf } from '../http/audit-hook.ts';
import { detailsOfIssue, type ValidationEntry } from '../http/error-handler.ts';
import { ApiError, errors } from '../domain/errors.ts';
import { withoutSafeIntegerBounds } from '../http/openapi.ts';
import { compiledSerializer } from '../http/serializer.ts';
import { rejectingUnstorableText } from '../http/text-guard.ts';
import { recordAudit } from '../modules/audit/store.ts';
import type { ApiRoute, RouteCatalog } from './catalog.ts';
import type { ToolInput, ToolSpec } from './tools.ts';

/** How the tools name the path parameters to a model. */
const PARAM_DESCRIPTIONS: Record<string, string> = {
  id: "The agent's id (ag_…), from list_agents.",
  sourceId: "The source's id (src_…), from list_sources.",
  conversationId: "The conversation's id (conv_…), from list_conversations.",
  messageId: "The answer's id (msg_…), from get_conversation.",
  fileId: "The visitor file's id, an attachment id from get_conversation.",
  leadId: "The lead's id (lead_…), from list_leads.",
  ticketId: "The ticket's id, from list_tickets.",
  image: 'logo (the chat header) or icon (the launcher button).',
};

type Validate = (data: unknown) => { value?: unknown; error?: unknown };

/** One tool, built once at start: what tools/list shows and how a call is checked, answered and written. */
interface ToolDefinition {
  spec: ToolSpec;
  route: ApiRoute;
  listed: Tool;
  parse(args: Record<string, unknown>): ToolInput;
  write(reply: unknown): string;
}

export interface ToolCall {
  auth: KeyCaller;
  requestId: string;
  name: string;
  args: Record<string, unknown> | undefined;
  /** The request's logger: a failure that is not one of the spec's errors is logged before it becomes internal_error. */
  log: FastifyBaseLogger;
}

/**
 * The MCP tools over the public API's routes. Everything that can be
 * computed once (JSON Schemas, validators, serializers, the list each kind of
 * key is shown) is, so a request only looks things up.
 */
export class McpTools {
  readonly #byName = new Map<string, ToolDefinition>();
  readonly #lists = new Map<string, Tool[]>();
  readonly #ctx: Context;

  constructor(ctx: Context, catalog: RouteCatalog, specs: ToolSpec[]) {
    this.#ctx = ctx;
    for (const spec of specs) {
      if (this.#byName.has(spec.name)) throw new Error(`Two MCP tools are named ${spec.name}`);
      this.#byName.set(spec.name, defineTool(spec, catalog.route(spec.route)));
    }
  }

  get names(): string[] {
    return [...this.#byName.keys()];
  }

  /** The tools this key may call: its scope covers them, REST does not refuse its tie to one agent, and the plan has them. */
  listFor(auth: KeyCaller): Tool[] {
    const kind = `${auth.scope}:${auth.agentId === null ? 'workspace' : 'agent'}:${auth.plan.clients ? 'clients' : ''}`;
    let tools = this.#lists.get(kind);
    if (!tools) {
      tools = [...this.#byName.values()].filter((tool) => visibleTo(tool, auth)).map((tool) => tool.listed);
      this.#lists.set(kind, tools);
    }
    return tools;
  }

  /** Whether a tool of that name exists at all (for any key). */
  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /**
   * A call as REST would answer it: the scope, the input checked by the
   * route's schemas, the route's verbs, the reply written by the route's
   * serializer, and the audit entry (marked as made through MCP) before the
   * result leaves. Every refusal is a tool error carrying the spec's error body.
   */
  async call({ auth, requestId, name, args, log }: ToolCall): Promise<CallToolResult> {
    const tool = this.#byName.get(name)!;
    try {
      requireScope(auth, tool.route.scope);
      const input = tool.parse(args ?? {});
      const text = tool.write(await tool.spec.run(this.#ctx, auth, input));
      if (tool.route.audit) {
        await recordAudit(this.#ctx.db, {
          workspaceId: auth.workspaceId,
          keyId: auth.keyId,
          action: tool.route.audit,
          target: targetOf(input.params, text),
          requestId,
          at: this.#ctx.clock.now(),
          via: 'mcp',
        });
      }
      return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) };
    } catch (error) {
      if (error instanceof ApiError) return toolError(error);
      log.error({ err: error, tool: name }, 'MCP tool failed');
      return toolError(errors.internal());
    }
  }
}

function visibleTo(tool: ToolDefinition, auth: KeyCaller): boolean {
  const { untiedOnly, planFeature } = tool.spec;
  return scopeAllows(auth.scope, tool.route.scope) && !(auth.agentId !== null && untiedOnly) && (!planFeature || auth.plan[planFeature]);
}

/** A refusal as a tool result: isError, with the spec's error body as its text (no structuredContent, which an output schema would judge). */
export function toolError(error: ApiError): CallToolResult {
  const body = { error: { code: error.code, message: error.message, details: error.details } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

function defineTool(spec: ToolSpec, route: ApiRoute): ToolDefinition {
  const paramShape = route.params?.shape ?? {};
  const payloadShape = offeredPayloadShape(spec, route);
  for (const key of Object.keys(payloadShape)) {
    if (key in paramShape) throw new Error(`${spec.name}: the argument ${key} is both a path parameter and a payload field`);
  }
  const described = Object.fromEntries(Object.entries(paramShape).map(([key, schema]) => [key, PARAM_DESCRIPTIONS[key] ? (schema as z.ZodType).describe(PARAM_DESCRIPTIONS[key]) : schema]));
  const input = z.strictObject({ ...described, ...payloadShape });
  return {
    spec,
    route,
    listed: {
      name: spec.name,
      title: spec.name.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase()),
      description: spec.description,
      inputSchema: jsonSchemaOf(input, 'input'),
      outputSchema: jsonSchemaOf(route.response, 'output'),
      annotations: spec.hints,
    },
    parse: inputParser(spec, route),
    write: compiledSerializer({ schema: route.response, method: route.key.split(' ')[0]!, url: route.key, httpStatus: String(route.status) } as never) as (reply: unknown) => string,
  };
}

/** The payload fields the tool offers: the query or body object, or the tool's branch of a body union, less what it omits. */
function offeredPayloadShape(spec: ToolSpec, route: ApiRoute): Record<string, z.ZodType> {
  const payload = route.payload;
  if (!payload) return {};
  let object: z.ZodObject;
  if (spec.variant) {
    const options = (payload as z.ZodDiscriminatedUnion).options as z.ZodObject[];
    const branch = options?.find((option) => (option.shape.type as z.ZodLiteral | undefined)?.value === spec.variant);
    if (!branch) throw new Error(`${spec.name}: ${route.key} has no body branch of type ${spec.variant}`);
    object = branch.omit({ type: true } as never);
  } else if (payload instanceof z.ZodObject) {
    object = payload;
  } else {
    throw new Error(`${spec.name}: the payload of ${route.key} is not an object; give the tool a variant`);
  }
  const shape = { ...object.shape } as Record<string, z.ZodType>;
  for (const key of spec.omit ?? []) delete shape[key];
  return shape;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Record<string, unknown>;
  if (json.type !== 'object') throw new Error('An MCP tool schema must describe an object');
  withoutSafeIntegerBounds(json);
  return withSingleTypes(json) as Tool['inputSchema'];
}

/** Keywords that describe a schema rather than constrain one: they stay beside the anyOf. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * zod writes a nullable field as `type: ["string", "null"]`. Clients that map tool
 * schemas onto a one-type dialect (Gemini's function declarations, the MCP
 * Inspector's portability check) reject or weaken that, so every such type
 * becomes anyOf branches of one type each, the constraints on the non-null ones.
 */
export function withSingleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withSingleTypes);
  if (!node || typeof node !== 'object') return node;
  const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withSingleTypes(value)]));
  if (!Array.isArray(object.type)) return object;
  const types = object.type as string[];
  if (types.length === 1) return { ...object, type: types[0] };
  const annotations = Object.fromEntries(Object.entries(object).filter(([key]) => ANNOTATIONS.has(key)));
  const constraints = Object.fromEntries(Object.entries(object).filter(([key]) => key !== 'type' && !ANNOTATIONS.has(key)));
  const branches = types.map((type) => (type === 'null' ? { type } : { type, ...constraints }));
  return { anyOf: branches, ...annotations };
}

/**
 * The arguments are one flat object: those named like a path parameter are
 * checked by the route's params schema, the rest by its query or body schema,
 * each with the validator REST uses (zod plus the text guard), so both refuse
 * the same input with the same details.
 */
function inputParser(spec: ToolSpec, route: ApiRoute): (args: Record<string, unknown>) => ToolInput {
  const paramKeys = new Set(Object.keys(route.params?.shape ?? {}));
  const validateParams = validatorFor(route.params ?? z.strictObject({}), 'params', route);
  const validatePayload = validatorFor(route.payload ?? z.strictObject({}), route.payload ? 'body' : 'querystring', route);
  const omitted = new Set([...(spec.omit ?? []), ...(spec.variant ? ['type'] : [])]);
  return (args) => {
    const params: Record<string, unknown> = {};
    const payload: Record<string, unknown> = spec.variant ? { type: spec.variant } : {};
    const unknown: string[] = [];
    for (const [key, value] of Object.entries(args)) {
      if (paramKeys.has(key)) params[key] = value;
      else if (omitted.has(key)) unknown.push(key);
      else payload[key] = value;
    }
    if (unknown.length > 0) {
      throw errors.invalid(`The tool's arguments are not valid: ${unknown.map((key) => `${key}: unknown field`).join('; ')}.`, unknown.map((field) => ({ field, message: 'unknown field' })));
    }
    return { params: checked(validateParams, params), payload: checked(validatePayload, payload) };
  };
}

function validatorFor(schema: z.ZodType, httpPart: string, route: ApiRoute): Validate {
  const [method, url] = route.key.split(' ');
  return rejectingUnstorableText(validatorCompiler)({ schema, httpPart, method: method!, url: url! }) as Validate;
}

function checked(validate: Validate, part: Record<string, unknown>): any {
  const result = validate(part);
  if (result.error === undefined) return result.value;
  if (result.error instanceof ApiError) throw result.error;
  const details = (result.error as ValidationEntry[]).flatMap((entry) => detailsOfIssue('arguments', entry, part));
  throw errors.invalid(`The tool's arguments are not valid: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);
}
