export const USAGE = `Usage: webui [command] [--config PATH] [--data-dir PATH] [--host LIST] [--port N] [--store URL] [--upstream-url URL]
             [--tls-cert PATH] [--tls-key PATH]

Commands:
  serve                 start the server (the default)
  token show [--reveal] print the access token and its source; a configured token only with --reveal
  token set             read a new token from standard input (same strength rules as /auth/update)
  token regenerate      replace the token with 64 random hex characters and print it once
  setup status          print whether first setup is completed
  setup complete        mark first setup completed
  setup reset           open first setup again
  keys create NAME [--scope read|admin] [--expires 90d]
                        make an API key for scripts and print it once (scope read unless told; no expiry unless told)
  keys list [--json]    name, scope, created, expires, last used of every key; never the keys themselves
  keys revoke NAME|--all
                        revoke a key (or every key) at once
  bans list [--json]    addresses with failures or a ban: failures in the window, banned until, last attempt;
                        then the global failure budget: failures in the last hour, and what new clients meet
  bans lift TARGET      lift bans and clear failures of an address, a CIDR or all, in force at once
  bans reset-budget     forget the global failure budget's failures, so new clients are let in again
  audit [--since WHEN] [--event NAME[,NAME...]] [--json]
                        print the security events of DATA_DIR/audit.log, oldest first; WHEN is a duration
                        (30m, 1h, 7d) or a time (2025-01-31T08:00, local unless it ends in Z or an offset)
  config check          validate the config file and print the effective settings and their sources
                        (with [webui.tls]: the certificate's names and days left)
  tls reload            the running server reads its certificate and key again (as on SIGHUP); a pair that
                        cannot serve is refused and the old one keeps serving
  help                  print this text

No command needs the token. The keys, setup, token set and token regenerate commands go through the
control socket of the server running on this data directory, DATA_DIR/webui.sock, so the change is in
force at once and in its audit log; with no server running there they act on the configured store
themselves (DATA_DIR/webui.json, or the shared Redis, whose other instances hear of it at once) and
append to DATA_DIR/audit.log. A server that runs but cannot be reached is never written behind: the
command refuses (exit 1). token show reads the configured store directly, server or not:
DATA_DIR/webui.json, or the record in Redis (no webui.json is written there).
The bans commands ask the server running on this data directory. With no server there: on the file
store bans live only in a running server's memory and ended with it (list finds none, lift and
reset-budget exit 1); on a shared store they are kept in Redis, outlive every server, and the commands
list, lift and reset them in Redis itself.
The audit command only reads files: it needs neither the token nor the server.
Exit codes: 0 ok, 1 refused, 2 usage.
`;
