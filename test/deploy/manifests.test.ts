import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { resolvePipelineConfig } from '../../src/config/index.js';

/**
 * deploy/: every manifest checked against the Kubernetes OpenAPI schema (kubernetes-models, from the npm
 * registry; `kubectl apply --dry-run=client` needs an API server to discover kinds), then the rules a
 * cluster enforcing the "restricted" Pod Security Standard applies, and what chatport needs to resume.
 */
interface Container {
  name: string;
  args?: string[];
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; runAsNonRoot?: boolean; privileged?: boolean; capabilities?: { drop?: string[]; add?: string[] }; seccompProfile?: { type: string } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface PodSpec {
  serviceAccountName?: string;
  hostNetwork?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string }; hostPath?: object }>;
}
interface JobSpec {
  podFailurePolicy?: { rules: Array<{ action: string; onExitCodes?: { containerName?: string; operator: string; values: number[] } }> };
  template: { spec: PodSpec };
}
type Manifest = { kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: unknown; data?: Record<string, string> } & Record<string, unknown>;

const DEPLOY = join(import.meta.dirname, '../../deploy');
const MODELS: Record<string, new (data: never) => { validate(): void }> = { Job, CronJob, ConfigMap, PersistentVolumeClaim, ServiceAccount };

async function manifests(): Promise<Array<{ file: string; doc: Manifest }>> {
  const out: Array<{ file: string; doc: Manifest }> = [];
  for (const file of (await readdir(DEPLOY)).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(await readFile(join(DEPLOY, file), 'utf8'))) {
      expect(doc.errors, file).toEqual([]);
      out.push({ file, doc: doc.toJS() as Manifest });
    }
  }
  return out;
}

function jobSpecOf(doc: Manifest): JobSpec | undefined {
  if (doc.kind === 'Job') return doc.spec as JobSpec;
  if (doc.kind === 'CronJob') return (doc.spec as { jobTemplate: { spec: JobSpec } }).jobTemplate.spec;
  return undefined;
}

describe('deploy/ manifests', () => {
  it('each is a valid object of its kind by the Kubernetes schema', async () => {
    const all = await manifests();
    expect(all.map((m) => `${m.file}:${m.doc.kind}`)).toEqual([
      'cronjob-nightly-export.yaml:CronJob', 'import-job.yaml:PersistentVolumeClaim', 'import-job.yaml:ConfigMap', 'import-job.yaml:Job', 'serviceaccount.yaml:ServiceAccount',
      'sharded-migration-job.yaml:PersistentVolumeClaim', 'sharded-migration-job.yaml:Job',
    ]);
    for (const { file, doc } of all) {
      const Model = MODELS[doc.kind];
      expect(Model, `${file}: ${doc.kind}`).toBeDefined();
      expect(() => new Model!(doc as never).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`).not.toThrow();
    }
  });

  it('the schema check catches a wrong field', async () => {
    const job = (await manifests()).find((m) => m.doc.kind === 'Job')!.doc;
    const broken = structuredClone(job);
    jobSpecOf(broken)!.template.spec.containers[0]!.securityContext!.runAsNonRoot = 'yes' as never;
    expect(() => new Job(broken as never).validate()).toThrow(/runAsNonRoot must be boolean/);
  });

  it('every pod meets the restricted Pod Security Standard, with /tmp on an emptyDir and resources set', async () => {
    const jobs = (await manifests()).filter((m) => jobSpecOf(m.doc));
    expect(jobs.map((m) => m.doc.kind).sort()).toEqual(['CronJob', 'Job', 'Job']);
    for (const { file, doc } of jobs) {
      const pod = jobSpecOf(doc)!.template.spec;
      expect(pod.securityContext, file).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext!.runAsUser, file).toBeGreaterThan(0);
      expect(pod.hostNetwork, file).toBeUndefined();
      expect(pod.volumes?.some((v) => v.hostPath), file).toBeFalsy();
      for (const c of pod.containers) {
        expect(c.securityContext, `${file} ${c.name}`).toEqual({
          allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
        });
        const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir, `${file}: /tmp on an emptyDir`).toBeDefined();
        expect(c.resources?.requests, file).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(c.resources?.limits?.memory, file).toEqual(expect.any(String));
      }
    }
  });

  it('fails the Job at once on data and configuration errors, retries temporary ones (README exit codes)', async () => {
    for (const { file, doc } of (await manifests()).filter((m) => jobSpecOf(m.doc))) {
      const spec = jobSpecOf(doc)!;
      const rules = spec.podFailurePolicy!.rules;
      const codes = (...actions: string[]) => rules.filter((r) => actions.includes(r.action)).flatMap((r) => r.onExitCodes?.values ?? []);
      // An Indexed Job fails the one index (FailIndex); the others fail the Job.
      const failing = codes('FailJob', 'FailIndex');
      expect(failing, file).toEqual(expect.arrayContaining([2, 64, 65, 66, 77, 78]));
      expect(codes('Count'), file).toEqual(expect.arrayContaining([69, 75, 143]));
      expect(failing.filter((c) => codes('Count').includes(c)), file).toEqual([]);
      for (const r of rules.filter((r) => r.onExitCodes)) expect(spec.template.spec.containers.map((c) => c.name), file).toContain(r.onExitCodes!.containerName);
    }
  });

  it('the import Job keeps its state folder on the claim, so a rescheduled pod resumes', async () => {
    const all = await manifests();
    const job = all.find((m) => m.doc.kind === 'Job')!.doc;
    const spec = jobSpecOf(job)!;
    expect(job.spec).toMatchObject({ parallelism: 1, completions: 1 });
    const container = spec.template.spec.containers[0]!;
    const stateArg = container.args![container.args!.indexOf('--state') + 1]!;
    const mount = container.volumeMounts!.find((m) => stateArg.startsWith(`${m.mountPath}/`))!;
    const claim = spec.template.spec.volumes!.find((v) => v.name === mount.name)!.persistentVolumeClaim!.claimName;
    expect(all.some((m) => m.doc.kind === 'PersistentVolumeClaim' && m.doc.metadata.name === claim)).toBe(true);
  });

  it('the pods use a service account annotated for IRSA, and the import Job’s pipeline resolves', async () => {
    const all = await manifests();
    const account = all.find((m) => m.doc.kind === 'ServiceAccount')!.doc;
    expect(account.metadata.annotations?.['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::\d{12}:role\//);
    for (const { doc } of all.filter((m) => jobSpecOf(m.doc))) expect(jobSpecOf(doc)!.template.spec.serviceAccountName).toBe(account.metadata.name);
    const yaml = all.find((m) => m.doc.kind === 'ConfigMap')!.doc.data!['pipeline.yaml']!;
    const resolved = resolvePipelineConfig(yaml, { env: {}, path: '/config/pipeline.yaml' });
    expect(resolved.ok ? [] : resolved.errors).toEqual([]);
  });

  it('the sharded Job is Indexed with --shards its completions, shards sharing one ReadWriteMany state root', async () => {
    const all = await manifests();
    const found = all.find((m) => m.file === 'sharded-migration-job.yaml' && m.doc.kind === 'Job')!.doc;
    const spec = found.spec as JobSpec & { completionMode: string; completions: number; parallelism: number; backoffLimitPerIndex?: number; maxFailedIndexes?: number };
    expect(spec).toMatchObject({ completionMode: 'Indexed', maxFailedIndexes: 0 });
    expect(spec.parallelism).toBe(spec.completions);
    expect(spec.backoffLimitPerIndex).toBeGreaterThan(0);
    const container = spec.template.spec.containers[0]!;
    const args = container.args!;
    expect(Number(args[args.indexOf('--shards') + 1])).toBe(spec.completions);
    expect(args).not.toContain('--shard');
    const stateArg = args[args.indexOf('--state') + 1]!;
    const mount = container.volumeMounts!.find((m) => stateArg.startsWith(`${m.mountPath}/`))!;
    const claim = spec.template.spec.volumes!.find((v) => v.name === mount.name)!.persistentVolumeClaim!.claimName;
    const pvc = all.find((m) => m.doc.kind === 'PersistentVolumeClaim' && m.doc.metadata.name === claim)!.doc;
    expect((pvc.spec as { accessModes: string[] }).accessModes).toEqual(['ReadWriteMany']);
  });

  it('the AWS Batch array job retries temporary failures and stops on the same codes, its state on EFS', async () => {
    const definition = JSON.parse(await readFile(join(DEPLOY, 'aws-batch', 'job-definition.json'), 'utf8')) as {
      type: string; retryStrategy: { attempts: number; evaluateOnExit: Array<{ onExitCode?: string; onReason?: string; onStatusReason?: string; action: string }> };
      containerProperties: { command: string[]; mountPoints: Array<{ sourceVolume: string; containerPath: string }>; volumes: Array<{ name: string; efsVolumeConfiguration?: object }>; environment: Array<{ name: string }>; secrets: Array<{ name: string }> };
    };
    const submit = JSON.parse(await readFile(join(DEPLOY, 'aws-batch', 'submit-job.json'), 'utf8')) as { jobDefinition: string; arrayProperties: { size: number } };
    expect(submit.arrayProperties.size).toBeGreaterThan(1);
    const exitAction = (code: number) => definition.retryStrategy.evaluateOnExit.find((r) => r.onExitCode === String(code))?.action;
    for (const code of [2, 3, 64, 65, 66, 77, 78]) expect({ code, action: exitAction(code) }).toEqual({ code, action: 'EXIT' });
    for (const code of [1, 69, 75, 130, 143]) expect({ code, action: exitAction(code) }).toEqual({ code, action: 'RETRY' });
    expect(definition.retryStrategy.attempts).toBeGreaterThan(1);
    // The index and the count come from AWS_BATCH_JOB_ARRAY_INDEX/SIZE: nothing in the command fixes them.
    const { command, mountPoints, volumes, environment, secrets } = definition.containerProperties;
    expect(command.filter((a) => a.startsWith('--shard'))).toEqual([]);
    const stateArg = command[command.indexOf('--state') + 1]!;
    const mount = mountPoints.find((m) => stateArg.startsWith(`${m.containerPath}/`))!;
    expect(volumes.find((v) => v.name === mount.sourceVolume)?.efsVolumeConfiguration).toBeDefined();
    expect(environment.map((e) => e.name)).not.toContain('CHATPORT_CLIENT_SECRET');
    expect(secrets.map((s) => s.name)).toContain('CHATPORT_CLIENT_SECRET');
  });
});
