/**
 * The dashboard's own JSON routes under /app/api (docs/people.md): one zod schema per
 * request and reply. Replies are strict objects: a field a service adds without its
 * schema fails the test harness (checkResponses) instead of being left out unseen.
 */
import { z } from 'zod';
import { pageQuery, queryTime } from '../../domain/paging.ts';
import { PLAN_IDS } from '../../domain/plans.ts';
import { isOneLine, ONE_LINE_MESSAGE, withoutBidiControls } from '../../domain/text.ts';
import { list, single, timestamp } from '../../http/schemas.ts';
import { agentSchema, languageSchema } from '../agents/schemas.ts';
import { REPORT_STATUSES } from '../clients/store.ts';
import { sourceSchema } from '../knowledge/routes.ts';
import { entrySchema } from '../tickets/schemas.ts';
import { keySchema, scopeSchema } from '../workspace/schemas.ts';

const id = z.string().max(64);
const emailSchema = z.email().max(254);
const passwordSchema = z.string().min(12).max(200);
const agentIdsSchema = z.array(id).max(200).nullable().optional();
const invitedRole = z.enum(['admin', 'member']);
const roleSchema = z.enum(['owner', 'admin', 'member']);
const personLanguage = z.enum(['en', 'nl']);
/** A name written into mail headers and lines (invitations, sign-in links): one line, without bidi controls. */
const oneLineName = z
  .string()
  .max(100)
  .refine(isOneLine, ONE_LINE_MESSAGE)
  .transform((name) => withoutBidiControls(name).trim());

/** A reply of `{ data }` whose data is a strict object of these fields. */
const singleOf = <Shape extends z.ZodRawShape>(shape: Shape) => single(z.strictObject(shape));

// ---------------------------------------------------------------- sign-in

export const signInPageQuery = z.object({ token: z.string().max(200).optional() });
export const signInLinkUseBody = z.object({ token: z.string().max(200) });
export const signInLinkBody = z.strictObject({ email: emailSchema });
export const signInLinkSentReply = singleOf({ sent: z.literal(true) });
export const passwordSignInBody = z.strictObject({ email: emailSchema, password: z.string().max(200) });

// ---------------------------------------------------------------- passkeys

/** A WebAuthn answer as the browser's PublicKeyCredential.toJSON() gives it; @simplewebauthn/server checks the rest. */
const webAuthnResponse = z.looseObject({
  id: z.string().max(1500),
  rawId: z.string().max(1500),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().max(10_000) }),
});
const passkeyName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(isOneLine, ONE_LINE_MESSAGE)
  .transform((name) => withoutBidiControls(name));

export const passkeySignInBody = z.strictObject({ response: webAuthnResponse });
export const passkeyRegistrationBody = z.strictObject({ response: webAuthnResponse, name: passkeyName.optional() });
export const passkeyParams = z.object({ passkeyId: id });
export const passkeyRenameBody = z.strictObject({ name: passkeyName });

const credentialDescriptor = z.strictObject({ id: z.string(), type: z.string(), transports: z.array(z.string()).optional() });
/** The extensions this service asks for: credProps (by @simplewebauthn on registration); the rest of the JSON-able inputs for completeness. */
const webAuthnExtensions = z.strictObject({ appid: z.string().optional(), credProps: z.boolean().optional(), hmacCreateSecret: z.boolean().optional(), minPinLength: z.boolean().optional() });
/** What the browser's navigator.credentials.create() takes (@simplewebauthn's PublicKeyCredentialCreationOptionsJSON). */
const registrationOptionsSchema = z.strictObject({
  rp: z.strictObject({ name: z.string(), id: z.string().optional() }),
  user: z.strictObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.strictObject({ alg: z.number(), type: z.literal('public-key') })),
  timeout: z.number().optional(),
  excludeCredentials: z.array(credentialDescriptor).optional(),
  authenticatorSelection: z
    .strictObject({
      authenticatorAttachment: z.string().optional(),
      requireResidentKey: z.boolean().optional(),
      residentKey: z.string().optional(),
      userVerification: z.string().optional(),
    })
    .optional(),
  hints: z.array(z.string()).optional(),
  attestation: z.string().optional(),
  attestationFormats: z.array(z.string()).optional(),
  extensions: webAuthnExtensions.optional(),
});
/** What navigator.credentials.get() takes (@simplewebauthn's PublicKeyCredentialRequestOptionsJSON). */
const signInOptionsSchema = z.strictObject({
  challenge: z.string(),
  timeout: z.number().optional(),
  rpId: z.string().optional(),
  allowCredentials: z.array(credentialDescriptor).optional(),
  userVerification: z.string().optional(),
  hints: z.array(z.string()).optional(),
  extensions: webAuthnExtensions.optional(),
});
export const registrationOptionsReply = single(registrationOptionsSchema);
export const signInOptionsReply = single(signInOptionsSchema);

export const passkeySchema = z.strictObject({ id: z.string(), name: z.string(), backedUp: z.boolean(), createdAt: timestamp, lastUsedAt: timestamp.nullable() });
export type PasskeyView = z.infer<typeof passkeySchema>;
export const passkeyReply = single(passkeySchema);
export const passkeyListReply = list(passkeySchema);
export const passkeyRemovedReply = singleOf({ id: z.string(), removed: z.literal(true) });

// ---------------------------------------------------------------- the person and their sessions

export const meSchema = z.strictObject({
  workspaces: z.array(z.strictObject({ id: z.string(), name: z.string(), role: roleSchema })),
  person: z.strictObject({ id: z.string(), email: z.string(), name: z.string(), language: personLanguage, hasPassword: z.boolean() }),
  workspace: z.strictObject({ id: z.string(), name: z.string(), plan: z.string() }),
  role: roleSchema,
  agentIds: z.array(z.string()).nullable(),
  csrfToken: z.string(),
});
export type Me = z.infer<typeof meSchema>;
export const meReply = single(meSchema);

export const passwordBody = z.strictObject({ password: passwordSchema, currentPassword: z.string().max(200).optional() });
export const passwordSetReply = singleOf({ hasPassword: z.literal(true) });
export const meChangeBody = z.strictObject({ name: oneLineName.optional(), language: personLanguage.optional() });
export const workspaceSwitchBody = z.strictObject({ workspaceId: id });
export const signedOutReply = singleOf({ signedOut: z.literal(true) });

export const sessionSchema = z.strictObject({
  id: z.string(),
  workspaceId: z.string(),
  userAgent: z.string(),
  createdAt: timestamp,
  lastSeenAt: timestamp,
  expiresAt: timestamp,
  current: z.boolean(),
});
export type SessionView = z.infer<typeof sessionSchema>;
export const sessionListReply = list(sessionSchema);
export const sessionParams = z.object({ sessionId: id });
export const sessionEndedReply = singleOf({ id: z.string(), ended: z.literal(true) });

// ---------------------------------------------------------------- API keys

export const keyBody = z.strictObject({ name: z.string().min(1).max(100), scope: scopeSchema, agentId: id.optional() });
export const keyParams = z.object({ keyId: id });
export const listedKeySchema = z.strictObject({ ...keySchema.shape, createdAt: timestamp, lastUsedAt: timestamp.nullable() });
export type ListedKey = z.infer<typeof listedKeySchema>;
/** The key itself is in this reply only. */
export const createdKeySchema = z.strictObject({ ...keySchema.shape, key: z.string(), createdAt: timestamp });
export type CreatedKey = z.infer<typeof createdKeySchema>;
export const keyListReply = list(listedKeySchema);
export const createdKeyReply = single(createdKeySchema);
export const keyRevokedReply = singleOf({ id: z.string(), revoked: z.literal(true) });

// ---------------------------------------------------------------- people and invitations

export const personSchema = z.strictObject({ id: z.string(), email: z.string(), name: z.string(), role: roleSchema, agentIds: z.array(z.string()).nullable(), since: timestamp });
export type PersonView = z.infer<typeof personSchema>;
export const personListReply = list(personSchema);
export const personReply = single(personSchema);
export const personParams = z.object({ personId: id });
export const roleChangeBody = z.strictObject({ role: invitedRole, agentIds: agentIdsSchema });
export const personRemovedReply = singleOf({ id: z.string(), removed: z.literal(true) });

export const invitationBody = z.strictObject({ email: emailSchema, role: invitedRole, agentIds: agentIdsSchema });
export const sentInvitationReply = singleOf({ email: z.string(), role: invitedRole, agentIds: z.array(z.string()).nullable(), expiresAt: timestamp });
export const invitationSchema = z.strictObject({ email: z.string(), role: invitedRole, agentIds: z.array(z.string()).nullable(), createdAt: timestamp, expiresAt: timestamp });
export type InvitationView = z.infer<typeof invitationSchema>;
export const invitationListReply = list(invitationSchema);
export const invitationParams = z.object({ email: emailSchema });
export const invitationWithdrawnReply = singleOf({ email: z.string(), withdrawn: z.literal(true) });

export const ownershipBody = z.strictObject({ personId: id });
export const ownershipReply = singleOf({ ownerId: z.string() });

// ---------------------------------------------------------------- tickets and webhooks

export const agentParams = z.object({ agentId: id });
export const ticketParams = z.object({ agentId: id, ticketId: id });
export const ticketDeletedReply = singleOf({ id: z.string(), deleted: z.literal(true) });
export const ticketReplyBody = z.strictObject({ body: z.string().trim().min(1).max(10_000) });
export const ticketEntryReply = single(z.strictObject(entrySchema.shape));

export const webhookParams = z.object({ webhookId: id });
export const webhookEnabledReply = singleOf({ id: z.string(), active: z.literal(true) });
export const deliverySchema = z.strictObject({
  id: z.string(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
  nextAttemptAt: timestamp.nullable(),
  attempts: z.array(
    z.strictObject({ number: z.number().int(), at: timestamp, statusCode: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number().int().nullable() }),
  ),
});
export type DeliveryView = z.infer<typeof deliverySchema>;
export const deliveryListReply = list(deliverySchema);

// ---------------------------------------------------------------- who is mailed

const personIds = z.array(id).max(200).nullable().optional();
const recipientsSchema = z.strictObject({ chosen: z.boolean(), people: z.array(z.strictObject({ id: z.string(), email: z.string(), name: z.string() })) });
export const agentNotificationsSchema = z.strictObject({ agentId: z.string(), leads: recipientsSchema, tickets: recipientsSchema });
export type AgentNotifications = z.infer<typeof agentNotificationsSchema>;
export const notificationsQuery = z.strictObject({});
/** GET /app/api/notifications: who is mailed about each agent the person reaches, all at once. */
export const notificationsListReply = list(agentNotificationsSchema);
export const agentNotificationsReply = single(agentNotificationsSchema);
export const notificationsBody = z.strictObject({ leads: personIds, tickets: personIds });

// ---------------------------------------------------------------- client reports

export const reportParams = z.object({ agentId: id, reportId: id });
export const reportListQuery = z.strictObject({ status: z.enum(REPORT_STATUSES).optional() });
export const reportSchema = z.strictObject({
  id: z.string(),
  month: z.string(),
  status: z.enum(REPORT_STATUSES),
  createdAt: timestamp,
  finishedAt: timestamp.nullable(),
  error: z.string().nullable(),
});
export type ReportView = z.infer<typeof reportSchema>;
export const reportReply = single(reportSchema);
export const reportListReply = list(reportSchema);

// ---------------------------------------------------------------- workspace settings

const storageSchema = z.strictObject({
  allowancePerAgentBytes: z.number().int(),
  agents: z.array(z.strictObject({ agentId: z.string(), name: z.string().nullable(), usedBytes: z.number().int() })),
});
export const workspaceSettingsSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  language: languageSchema,
  plan: z.enum(PLAN_IDS),
  credits: z.strictObject({
    usedThisMonth: z.number().int(),
    included: z.number().int(),
    purchased: z.number().int(),
    series: z.array(z.strictObject({ date: z.string(), credits: z.number().int() })),
  }),
  agents: z.strictObject({ count: z.number().int(), limit: z.number().int().nullable() }),
  storage: storageSchema,
});
export type WorkspaceSettings = z.infer<typeof workspaceSettingsSchema>;
/** A member limited to some agents is told only their agents' storage. */
export const limitedWorkspaceSettingsSchema = z.strictObject({ storage: storageSchema });
export type WorkspaceSettingsReply = WorkspaceSettings | z.infer<typeof limitedWorkspaceSettingsSchema>;
// The full settings first: the serializer picks the first branch the reply matches.
export const workspaceSettingsReply = single(z.union([workspaceSettingsSchema, limitedWorkspaceSettingsSchema]));
export const workspaceSettingsBody = z.strictObject({
  name: oneLineName.pipe(z.string().min(1)).optional(),
  language: languageSchema.optional(),
});

// ---------------------------------------------------------------- held e-mail drafts

export const draftParams = z.object({ agentId: id, ticketId: id, messageId: id });
export const heldDraftSchema = z.strictObject({ id: z.string(), draft: z.string(), createdAt: timestamp });
export type HeldDraft = z.infer<typeof heldDraftSchema>;
export const heldDraftListReply = list(heldDraftSchema);
export const draftSendBody = z.strictObject({ text: z.string().trim().min(1).max(10_000).optional() });
export const draftSentReply = singleOf({ id: z.string(), sent: z.literal(true), edited: z.boolean() });
export const draftDiscardedReply = singleOf({ id: z.string(), discarded: z.literal(true) });

// ---------------------------------------------------------------- the audit log

export const auditQuery = z.strictObject({
  personId: id.optional(),
  keyId: id.optional(),
  action: z.string().max(100).optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  ...pageQuery,
});
/** Who made a change: a person, a key (also once revoked; its name and prefix null once gone) or the operator. */
const auditActorSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('person'), id: z.string(), name: z.string().nullable(), email: z.string().nullable() }),
  z.strictObject({ kind: z.literal('key'), id: z.string(), name: z.string().nullable(), prefix: z.string().nullable() }),
  z.strictObject({ kind: z.literal('operator') }),
]);
export const auditEntrySchema = z.strictObject({
  id: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  requestId: z.string().nullable(),
  createdAt: timestamp,
  via: z.string().nullable(),
  by: auditActorSchema,
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
export const auditListReply = list(auditEntrySchema);

// ---------------------------------------------------------------- uploads

export const uploadedSourcesReply = z.strictObject({ data: z.array(sourceSchema) });
export const imageParams = agentParams.extend({ image: z.enum(['logo', 'icon']) });
export const cropBody = z.strictObject({
  x: z.number().int().min(0),
  y: z.number().int().min(0),
  width: z.number().int().min(1),
  height: z.number().int().min(1),
});
export const brandedAgentReply = single(agentSchema);
