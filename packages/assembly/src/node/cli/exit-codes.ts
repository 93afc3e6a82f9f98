/** The CLI's exit codes: 0 done, 1 refused (bad token, config error, ...), 2 the command line itself is wrong. */
export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
