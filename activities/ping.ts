/** The readiness ping: proves a worker picks up workflow and activity tasks end to end. */
export function createPingActivities(deps: { workerIdentity: string }) {
  return {
    // Async because activities are awaited by the workflow; the answer names the worker that ran it.
    pong(nonce: string): Promise<string> {
      return Promise.resolve(`pong ${nonce} from ${deps.workerIdentity}`);
    },
  };
}
