import type { UpstreamClientFactory } from './upstream-client.js';
import type { ForwardCounts } from '../upstream-options.js';

/** The highest status an HTTP answer can carry, and the index counting the forwards that got none. */
const NO_ANSWER = 600;

/** Forwarded requests by the upstream's status, as plain numbers indexed by status: counting one allocates nothing. */
export class UpstreamCounts implements ForwardCounts {
  readonly byStatus = new Float64Array(NO_ANSWER + 1);

  answered(status: number): void {
    this.count(status >= 100 && status < NO_ANSWER ? status : NO_ANSWER);
  }

  unanswered(): void {
    this.count(NO_ANSWER);
  }

  private count(index: number): void {
    this.byStatus[index] = (this.byStatus[index] ?? 0) + 1;
  }

  /** Every status seen, with "error" for a forward that got no answer (unreachable, timed out, refused by the transport). */
  *entries(): Generator<[code: string, count: number]> {
    for (let status = 100; status < NO_ANSWER; status++) if (this.byStatus[status]) yield [String(status), this.byStatus[status] as number];
    if (this.byStatus[NO_ANSWER]) yield ['error', this.byStatus[NO_ANSWER] as number];
  }
}

/** The runtime's upstream client with every forwarded request counted by the status the upstream answered. */
export function countedUpstreamClient(clientFor: UpstreamClientFactory, counts: UpstreamCounts): UpstreamClientFactory {
  // Counted once it settles: an answer by its status, a failure (refused, timed out, reset) as unanswered.
  const counted = <Answer extends { status: number }>(answer: Promise<Answer>): Promise<Answer> =>
    answer.then(
      (settled) => {
        counts.answered(settled.status);
        return settled;
      },
      (error: unknown) => {
        counts.unanswered();
        throw error;
      },
    );
  return (target) => {
    const client = clientFor(target);
    const { transport, send } = client;
    return {
      ...client,
      counts,
      transport: (request) => counted(transport(request)),
      ...(send ? { send: (request) => counted(send(request)) } : {}),
    };
  };
}
