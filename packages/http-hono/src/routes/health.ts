import { Hono } from 'hono';
import type { WebuiEnv } from '../app-env.js';

export function healthRoutes(serviceName: string) {
  return new Hono<WebuiEnv>().get('/health', (c) => c.json({ status: 'healthy', service: serviceName }));
}
