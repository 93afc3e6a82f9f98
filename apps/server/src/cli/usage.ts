export const USAGE = `Usage: webui [command] [--config PATH] [--data-dir PATH] [--host LIST] [--port N]

Commands:
  serve                 start the server (the default)
  token show [--reveal] print the access token and its source; a configured token only with --reveal
  token set             read a new token from standard input (same strength rules as /auth/update)
  token regenerate      replace the token with 64 random hex characters and print it once
  setup status          print whether first setup is completed
  setup complete        mark first setup completed
  setup reset           open first setup again
  bans list [--json]    addresses with failures or a ban: failures in the window, banned until, last attempt
  bans lift TARGET      lift bans and clear failures of an address, a CIDR or all, on the running server at once
  config check          validate the config file and print the effective settings and their sources
  help                  print this text

The token and setup commands work on the data directory whether or not the server runs;
a running server picks the change up within a second. The bans commands need no token: they ask the
running server through DATA_DIR/webui.sock (bans live in its memory and end when it stops).
Exit codes: 0 ok, 1 refused, 2 usage.
`;
