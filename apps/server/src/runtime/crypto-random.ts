import type { RandomSource } from '@webui/core';
import { randomBytes } from 'node:crypto';

export const cryptoRandom: RandomSource = { bytes: (length) => new Uint8Array(randomBytes(length)) };
