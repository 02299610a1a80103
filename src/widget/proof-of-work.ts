/**
 * The widget's side of an agent's proof-of-work (docs/security.md): before each
 * question it fetches a challenge and solves it with altcha-lib (SHA-256 in the
 * browser's WebCrypto, a fraction of a second), without the visitor seeing
 * anything. The next question's solution is worked out ahead while the visitor
 * reads and types, so asking is not slowed down.
 */
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/sha';

const HEADER = 'x-visitor-proof';

/** Challenges live 10 minutes on the service; one solved ahead is used within 8. */
const FRESH_MS = 8 * 60_000;

let ahead: { proof: Promise<string | undefined>; at: number } | undefined;

/** The header for the next question: a solved challenge when the agent asks for one, else nothing. */
export async function proofHeader(base: string, agent: { id: string; proofOfWork?: boolean }): Promise<Record<string, string>> {
  if (!agent.proofOfWork) return {};
  const fresh = ahead && Date.now() - ahead.at < FRESH_MS ? ahead.proof : solve(base, agent.id);
  const proof = await fresh;
  ahead = { proof: solve(base, agent.id), at: Date.now() };
  return proof ? { [HEADER]: proof } : {};
}

async function solve(base: string, agentId: string): Promise<string | undefined> {
  try {
    const reply = await fetch(`${base}/visitor/v1/agents/${agentId}/challenge`);
    if (!reply.ok) return undefined;
    const challenge = ((await reply.json()) as { data: Challenge }).data;
    const solution = await solveChallenge({ challenge, deriveKey, timeout: 30_000 });
    return solution ? btoa(JSON.stringify({ challenge, solution })) : undefined;
  } catch {
    // Without a proof the question is refused and the widget says so, as for any failed question.
    return undefined;
  }
}
