import { serviceDefinitions, type ServiceName } from '@latchkey/contracts';
import { createServiceClient, tlsFilesOf, type MutualTlsSettings, type ServiceClient, type ServiceDefinitionShape } from '@latchkey/grpc-kit';
import { unitNamed, units, type CalleeOf, type ServiceCalledBy, type Unit, type UnitName } from '@latchkey/units';
import { calleeAddressOf, type AddressVariableOf } from './caller-variables';

/** What a client is called by its caller: its proto package (`oidc` for `oidc.v1.OidcService`). */
export type ClientKeyOf<Service extends string> = Service extends `${infer ProtoPackage}.${string}` ? ProtoPackage : never;

/** The client of one service: `ServiceClient<typeof identityV1.IdentityServiceService>` for `identity.v1.IdentityService`. */
export type ServiceClientOf<Service extends ServiceName> = ServiceClient<(typeof serviceDefinitions)[Service]>;

/** One client per service unit `Name` calls, named by its proto package: `{ identity, oidc, posts, ... }` for the gateway. */
export type CalleeClients<Name extends UnitName> = {
  readonly [Service in ServiceCalledBy<Name> & ServiceName as ClientKeyOf<Service>]: ServiceClientOf<Service>;
};

/** What unit `Name` connects with: the address of each unit it calls (its `callerVariables`) and the mutual-TLS files. */
export type CallerSettings<Name extends UnitName> = Readonly<Record<AddressVariableOf<CalleeOf<Name>>, string>> & MutualTlsSettings;

/** A unit's clients, and how to close their channels. */
export interface Callees<Clients> {
  readonly clients: Clients;
  close(): void;
}

/** The units and the service definitions `connectCalleesOf` reads: the real ones, unless a dry run adds a unit. */
export interface CatalogueAndContracts {
  readonly catalogue: readonly Unit[];
  readonly definitions: Readonly<Record<string, ServiceDefinitionShape>>;
}

const catalogueAndContracts: CatalogueAndContracts = { catalogue: units, definitions: serviceDefinitions };

/**
 * One client per service `unit` calls, each on a long-lived channel to the
 * address of the unit that serves it, named by the service's proto
 * package. Nothing connects until a call is made.
 */
export function connectCalleesOf(
  unit: Unit,
  settings: Readonly<Record<string, unknown>> & MutualTlsSettings,
  { catalogue, definitions }: CatalogueAndContracts = catalogueAndContracts,
): Callees<Readonly<Record<string, ServiceClient<ServiceDefinitionShape>>>> {
  const tls = tlsFilesOf(settings);
  const clients: Record<string, ServiceClient<ServiceDefinitionShape>> = {};
  for (const service of Object.keys(unit.calls)) {
    const key = service.split('.')[0]!;
    const definition = definitions[service];
    if (!definition) throw new Error(`${unit.name} calls ${service}, which no proto of proto/ declares`);
    if (clients[key]) throw new Error(`${unit.name} calls two services of proto package ${key}: their clients would share one name`);
    clients[key] = createServiceClient(definition, calleeAddressOf(service, settings, catalogue), { tls });
  }
  return {
    clients,
    close() {
      for (const client of Object.values(clients)) client.close();
    },
  };
}

/**
 * The clients of unit `name`: one per service its catalogue entry calls,
 * typed by that service's definition. `close()` closes them all.
 */
export function connectCallees<Name extends UnitName>(name: Name, settings: CallerSettings<Name>): Callees<CalleeClients<Name>> {
  return connectCalleesOf(unitNamed(name), settings) as unknown as Callees<CalleeClients<Name>>;
}
