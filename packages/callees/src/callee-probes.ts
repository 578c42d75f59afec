import { HealthProbe, tlsFilesOf, type MutualTlsSettings } from '@latchkey/grpc-kit';
import { unitNamed, units, unitServing, type UnitName, type Unit } from '@latchkey/units';
import type { CallerSettings } from './callee-clients';
import { calleeAddressOf } from './caller-variables';

/** A unit its caller asks whether it serves, for the caller's dependency status. */
export interface CalleeProbe {
  readonly unit: string;
  /** The service the health check names: the callee's own (its `grpcService`). */
  readonly service: string;
  readonly probe: HealthProbe;
}

/** A health probe of each unit `unit` calls, in catalogue order, at the address its caller reads. */
export function probeCalleesOf(unit: Unit, settings: Readonly<Record<string, unknown>> & MutualTlsSettings, catalogue: readonly Unit[] = units): CalleeProbe[] {
  const tls = tlsFilesOf(settings);
  const called = new Set(Object.keys(unit.calls).map((service) => unitServing(service, catalogue).name));
  return catalogue.flatMap((callee) =>
    called.has(callee.name) && callee.grpcService !== undefined
      ? [{ unit: callee.name, service: callee.grpcService, probe: new HealthProbe(calleeAddressOf(callee.grpcService, settings, catalogue), tls) }]
      : [],
  );
}

/** The health probes of the units `name` calls, for its dependency status; each one's `probe.close()` releases it. */
export function probeCallees<Name extends UnitName>(name: Name, settings: CallerSettings<Name>): CalleeProbe[] {
  return probeCalleesOf(unitNamed(name), settings);
}
