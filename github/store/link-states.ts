/**
 * The one-use `state` of a GitHub linking flow (migration 0021,
 * docs/adr/0015-installation-linking-proof.md): issued to a dashboard session for one installation,
 * consumed when GitHub redirects back.
 *
 * Invariants:
 * - Only SHA-256 of the state and of the session id are stored; the state is 32 random bytes.
 * - `consume` deletes the row whatever it then decides, so a state is tried at most once: a replay,
 *   a forged state, an expired one, or one presented in another session all come back null.
 * - A session holds at most MAX_STATES_PER_SESSION live states (the oldest go); expired rows are swept
 *   at each issue, so the table cannot grow without bound.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

export const LINK_STATE_TTL_MS = 10 * 60_000;
export const MAX_STATES_PER_SESSION = 5;

export interface LinkStateStore {
  /** A new state for `sessionId` (the dashboard cookie's value) to link `installationId`. */
  issue(input: { organisationId: string; sessionId: string; installationId: number }): Promise<string>;
  /** What the state was issued for, if it is live and was issued to `sessionId`; null otherwise. */
  consume(
    state: string,
    sessionId: string,
  ): Promise<{ organisationId: string; installationId: number } | null>;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function createLinkStateStore(pool: Pool, opts: { ttlMs?: number } = {}): LinkStateStore {
  const ttlMs = opts.ttlMs ?? LINK_STATE_TTL_MS;
  return {
    async issue({ organisationId, sessionId, installationId }) {
      const state = randomBytes(32).toString('base64url');
      const session = sha256(sessionId);
      await pool.query('DELETE FROM github_link_states WHERE expires_at <= now()');
      await pool.query(
        `INSERT INTO github_link_states (state_hash, organisation_id, session_hash, installation_id, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))`,
        [sha256(state), organisationId, session, installationId, ttlMs],
      );
      await pool.query(
        `DELETE FROM github_link_states WHERE session_hash = $1 AND state_hash NOT IN (
           SELECT state_hash FROM github_link_states WHERE session_hash = $1
           ORDER BY created_at DESC, state_hash LIMIT $2)`,
        [session, MAX_STATES_PER_SESSION],
      );
      return state;
    },

    async consume(state, sessionId) {
      if (state.length < 20 || state.length > 200) return null;
      const { rows } = await pool.query<{
        organisation_id: string;
        installation_id: string;
        session_hash: Buffer;
        live: boolean;
      }>(
        `DELETE FROM github_link_states WHERE state_hash = $1
         RETURNING organisation_id, installation_id, session_hash, expires_at > now() AS live`,
        [sha256(state)],
      );
      const row = rows[0];
      if (!row || !row.live || !row.session_hash.equals(sha256(sessionId))) return null;
      return { organisationId: row.organisation_id, installationId: Number(row.installation_id) };
    },
  };
}
