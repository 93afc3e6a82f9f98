import type { Clock } from '@webui/core';

export const systemClock: Clock = { now: () => Date.now() };
