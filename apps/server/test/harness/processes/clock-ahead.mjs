// Preloaded into a CLI or server process (node --import) by the tests: its wall clock runs
// TEST_CLOCK_AHEAD_MS ahead, so a test sees an expiry pass without waiting for it.
const aheadMs = Number(process.env.TEST_CLOCK_AHEAD_MS ?? 0);
const RealDate = Date;

class AheadDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + aheadMs);
    else super(...args);
  }

  static now() {
    return RealDate.now() + aheadMs;
  }
}

globalThis.Date = AheadDate;
