import type { Clock, RandomSource } from '@webui/core';
import { networkInterfaces } from 'node:os';

/** Wall-clock time, the core's Clock in every deployment. */
export const systemClock: Clock = { now: () => Date.now() };

/** Web Crypto: the same cryptographically secure source on Node, Bun and Deno. */
export const systemRandom: RandomSource = { bytes: (length) => crypto.getRandomValues(new Uint8Array(length)) };

/**
 * This machine's own IP addresses, for a banner that must not show a wildcard; empty where the runtime may not ask (Deno without
 * --allow-sys=networkInterfaces).
 */
export function machineAddresses(): MachineAddress[] {
  try {
    return Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) => ({ address: entry.address, family: entry.family === 'IPv6' ? 6 : 4, internal: entry.internal }) as const);
  } catch {
    return [];
  }
}

export interface MachineAddress {
  address: string;
  family: 4 | 6;
  /** Loopback: reachable from this machine only. */
  internal: boolean;
}
