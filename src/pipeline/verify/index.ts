/** Reconciliation of the platform against the source: `runVerify`, and what the CLI and the import run need around it. */
export { exportWaitOf, runVerify, type VerifyOptions, type VerifyDeps, type VerifyResult } from './run-verify.js';
export { verifyImportRun } from './verify-import-run.js';
export { findLatestRun } from './latest-run.js';
export { formatVerification, verificationJsonPieces, where } from './describe.js';
export type { Difference, DifferenceKind, DifferenceCounts, StageVerification, VerificationSummary } from './types.js';
