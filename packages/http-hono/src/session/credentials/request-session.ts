import type { AccessOperations, AttemptClient, AuthenticationOutcome, PresentedCredentials } from '@webui/core';
import type { Context } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { bearerCredential, holdsSeveralCredentials } from './bearer-credential.js';
import { requestHeader } from '../../runtime-port.js';
import { sessionCookieCandidates } from './session-cookie.js';

/** The session of a request as the core's authenticate verb answers it. */
export type RequestSession = AuthenticationOutcome;

/** The client of a request as the edge resolved it. */
export function attemptClientOf(c: Context<WebuiEnv>): AttemptClient {
  return { ip: c.get('clientIp') };
}

/**
 * The credentials in the two headers a credential can come in, parsed and nothing looked up: every
 * bot_session cookie, the bearer, and whether Authorization held several (the core judges what that means).
 */
export function presentedCredentials(cookie: string | undefined, authorization: string | undefined): PresentedCredentials {
  return {
    cookies: sessionCookieCandidates(cookie),
    bearer: bearerCredential(authorization),
    severalAuthorizations: holdsSeveralCredentials(authorization),
  };
}

export function presentedCredentialsOf(c: Context<WebuiEnv>): PresentedCredentials {
  return presentedCredentials(requestHeader(c, 'cookie'), requestHeader(c, 'authorization'));
}

/** The session of a request, from its cookie or its bearer: one call of the core's authenticate verb. */
export function authenticateRequest(
  c: Context<WebuiEnv>,
  operations: Pick<AccessOperations, 'authenticate'>,
): ReturnType<AccessOperations['authenticate']> {
  return operations.authenticate(presentedCredentialsOf(c), attemptClientOf(c));
}
