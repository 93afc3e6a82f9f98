// The first-setup page: log in, replace the temporary token, complete setup, see and lift bans, manage API keys, watch the live log.
// Plain DOM, no framework; data from the server only ever goes into textContent. Views (*-view.ts) draw,
// flows (*-flow.ts) talk to the server through @webui/client.
import { BansFlow } from './bans-flow.js';
import { bindShowTokenToggle, renderTokenRules } from './custom-token-view.js';
import { guarded } from './guarded-action.js';
import { KeysFlow } from './keys-flow.js';
import { LogStream } from './log-stream-flow.js';
import { bindNewKeyPanel } from './new-key-view.js';
import { bindNewTokenPanel } from './new-token-view.js';
import { createPageClient } from './page-client.js';
import { ui } from './page-elements.js';
import { show } from './page-view.js';
import { SessionFlow } from './session-flow.js';
import { bindSetupFlow } from './setup-flow.js';
import { takeTokenFromUrl } from './token-from-url.js';
import { bindTokenFlow } from './token-flow.js';

// The login link carries the token: take it out of the address bar before anything touches the network.
const tokenFromUrl = takeTokenFromUrl();

const client = createPageClient();
const session = new SessionFlow(client);
session.bind();
session.attach(new LogStream(client));
const bans = new BansFlow(client, session);
bans.bind();
session.attach(bans);
const keys = new KeysFlow(client, session);
keys.bind();
session.attach(keys);
bindTokenFlow(client, session);
bindSetupFlow(client, session);
bindShowTokenToggle();
bindNewTokenPanel();
bindNewKeyPanel();
renderTokenRules();

void guarded(
  () => session.start(tokenFromUrl),
  ui.login.error,
  () => show('login'),
);
