// docs/events.asyncapi.yaml describes the events Latchkey publishes: a valid
// AsyncAPI 3 document, a channel per event type, and for each the fields of
// its proto message (proto/events/v1/events.proto) in their JSON names.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { parse } from 'yaml';
import { eventsV1 } from '@latchkey/contracts';
import { eventTypes, payloadFieldOf } from '@latchkey/domain-events';

const file = path.resolve(__dirname, '../../docs/events.asyncapi.yaml');
const text = readFileSync(file, 'utf8');
const document = parse(text) as {
  channels: Record<string, { address: string }>;
  components: { schemas: Record<string, { properties: Record<string, unknown> }>; messages: Record<string, { name: string }> };
};

/** The generated message type of a payload field, by its TypeScript name (userRegistered -> UserRegistered). */
function messageOf(field: string): { fromPartial(value: object): object } {
  const name = field[0]!.toUpperCase() + field.slice(1);
  return (eventsV1 as unknown as Record<string, { fromPartial(value: object): object }>)[name]!;
}

test('is a valid AsyncAPI 3 document', async () => {
  const diagnostics = await new Parser().validate(text);
  // Severity 0 is an error (spectral's DiagnosticSeverity.Error).
  expect(diagnostics.filter((diagnostic) => Number(diagnostic.severity) === 0).map((diagnostic) => diagnostic.message)).toEqual([]);
});

test('has a channel and a message for every event type, and no other', () => {
  expect(Object.values(document.channels).map((channel) => channel.address).sort()).toEqual(eventTypes.map((type) => `latchkey.events.${type}`).sort());
  expect(Object.values(document.components.messages).map((message) => message.name).sort()).toEqual([...eventTypes].sort());
});

test('describes each payload with exactly the fields of its proto message', () => {
  for (const type of eventTypes) {
    const field = payloadFieldOf(type);
    const schemaName = field[0]!.toUpperCase() + field.slice(1);
    const described = Object.keys(document.components.schemas[schemaName]?.properties ?? {}).sort();
    expect({ type, fields: described }).toEqual({ type, fields: Object.keys(messageOf(field).fromPartial({})).sort() });
  }
  const envelope = Object.keys(eventsV1.Event.fromPartial({})).filter((key) => !eventTypes.map(payloadFieldOf).includes(key));
  expect(Object.keys(document.components.schemas.envelope?.properties ?? {}).sort()).toEqual(envelope.sort());
});
