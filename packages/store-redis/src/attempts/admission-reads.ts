import type { ClientState } from '@webui/core/adapter';

/**
 * The admission reads of each client key on their way to Redis: a request joins the one in flight rather than sending its own,
 * so the dashboard's polls from every tab (and a load of requests from one address) cost one round trip per round trip's worth
 * of requests. Nothing is kept past the answer: every admission is answered by Redis after the request arrived or while it was
 * on its way, so a frozen Redis fails a right credential as it fails a wrong one. Holds only what is in flight, so it needs no cap.
 */
export class AdmissionReads {
  private readonly inFlight = new Map<string, Promise<ClientState>>();

  /** The read of `key` in flight, or `read()` sent now for this request and any that come while it is on its way. */
  join(key: string, read: () => Promise<ClientState>): Promise<ClientState> {
    const joined = this.inFlight.get(key);
    if (joined !== undefined) return joined;
    const sent: Promise<ClientState> = read().finally(() => {
      if (this.inFlight.get(key) === sent) this.inFlight.delete(key);
    });
    this.inFlight.set(key, sent);
    return sent;
  }

  /** This instance records something about `key`: a read sent before may predate it, so later requests send their own. */
  forget(key: string): void {
    this.inFlight.delete(key);
  }
}
