export {
  addressVariableOf,
  callersOf,
  serveArgsOf,
  unitNamed,
  units,
  type BackingServiceName,
  type PortName,
  type Unit,
  type UnitKind,
  type UnitPort,
} from './unit-catalogue';
