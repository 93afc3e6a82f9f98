// `webui`: the WebUI management API on Node, and its operator commands (cli/usage.ts of @webui/assembly/node).
import { serveWebui } from '@webui/assembly/node';

await serveWebui();
