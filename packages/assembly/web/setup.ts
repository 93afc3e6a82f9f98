// The first-setup page: log in, replace the temporary token, complete setup, see and lift bans, manage API keys, watch the live log.
// Plain DOM, no framework; data from the server only ever goes into textContent. Views (*-view.ts) draw,
// flows (*-flow.ts) talk to the server through @webui/client.
import { BansFlow } from './bans/bans-flow.js';
import { bindShowTokenToggle, renderTokenRules } from './session/custom-token-view.js';
import { guarded } from './page/guarded-action.js';
import { KeysFlow } from './keys/keys-flow.js';
import { LogStream } from './logs/log-stream-flow.js';
import { bindNewKeyPanel } from './keys/new-key-view.js';
import { bindNewTokenPanel } from './session/new-token-view.js';
import { createPageClient } from './page/page-client.js';
import { ui } from './page/page-elements.js';
import { show } from './page/page-view.js';
import { SessionFlow } from './session/session-flow.js';
import { bindSetupFlow } from './session/setup-flow.js';
import { takeTokenFromUrl } from './session/token-from-url.js';
import { bindTokenFlow } from './session/token-flow.js';

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
