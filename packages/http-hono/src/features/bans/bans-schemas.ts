import * as v from 'valibot';

/** One client key with counted failures or a running ban, as GET /security/bans lists it. */
export const BanEntryBody = v.strictObject({
  key: v.pipe(v.string(), v.description('The client key: an IPv4 address, an IPv6 /64 (`2001:db8:1:2::/64`), or another peer name.')),
  failures: v.pipe(v.number(), v.integer(), v.description('Failures counted in the 5-minute window; 0 while banned.')),
  banned_until: v.pipe(v.nullable(v.string()), v.description('ISO 8601 end of the running ban, or null.')),
  last_attempt: v.pipe(v.nullable(v.string()), v.description('ISO 8601 time of the last counted failure, or null.')),
});

export const BanListResponse = v.strictObject({ bans: v.array(BanEntryBody) });

export const BanLiftResponse = v.strictObject({
  success: v.literal(true),
  lifted: v.pipe(v.array(BanEntryBody), v.description('What was lifted, as it was listed just before; empty when nothing matched.')),
});
