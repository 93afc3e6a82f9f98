import type { InferResponseType } from 'hono/client';
import { describe, expectTypeOf, it } from 'vitest';
import type { HealthResult, WebuiApi } from './create-webui-client.js';

describe("the client's answer types", () => {
  it('are what hc infers from a route that answers with its schema', () => {
    expectTypeOf<InferResponseType<WebuiApi['health']['$get'], 200>>().toEqualTypeOf<HealthResult>();
  });
});
