export const USAGE = `Usage: webui [command] [--config PATH] [--data-dir PATH] [--host LIST] [--port N]

Commands:
  serve                 start the server (the default)
  token show [--reveal] print the access token and its source; a configured token only with --reveal
  token set             read a new token from standard input (same strength rules as /auth/update)
  token regenerate      replace the token with 64 random hex characters and print it once
  setup status          print whether first setup is completed
  setup complete        mark first setup completed
  setup reset           open first setup again
  config check          validate the config file and print the effective settings and their sources
  help                  print this text

The token and setup commands work on the data directory whether or not the server runs;
a running server picks the change up within a second.
Exit codes: 0 ok, 1 refused, 2 usage.
`;
