/**
 * A channel item whose members or creator include a user the import's checks do not know (`knownUser`:
 * ReadStageDeps.knownUser): stage-checks.ts rejects it before it is sent, so in a sharded read it claims no
 * name and its members and messages hold no keys. Without `knownUser` every user is taken for known.
 */
export function namesUnknownUser(item: unknown, knownUser: ((name: string) => boolean) | undefined): boolean {
  if (knownUser === undefined) return false;
  const { members, creator } = item as { members?: unknown; creator?: unknown };
  const refused = (name: unknown) => typeof name === 'string' && !knownUser(name);
  return (Array.isArray(members) && members.some(refused)) || refused(creator);
}
