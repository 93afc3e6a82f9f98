/** Time as the core sees it: milliseconds since the epoch. Tests pass a FakeClock. */
export interface Clock {
  now(): number;
}
