/** The typed challenge of the approval gate (docs/approval.md). */
export const CHALLENGE_PREFIX = "APPROVE_PRODUCTION";

export function expectedChallenge(digest: string): string {
	return `${CHALLENGE_PREFIX} ${digest}`;
}

/**
 * True only for the exact string `APPROVE_PRODUCTION <digest>`: no trimming,
 * no case folding, no prefix of the digest, one space.
 */
export function challengeMatches(input: string, digest: string): boolean {
	return digest.length > 0 && input === expectedChallenge(digest);
}
