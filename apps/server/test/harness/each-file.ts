import { afterAll } from 'vitest';
import { closeOpenClients } from './clients/ws-client.js';

// vitest's setupFiles: runs before every test file. Test files share a worker's module cache (isolate: false),
// so a hook registered at a harness module's top level would fire for the first file that imported it only.
afterAll(closeOpenClients);
