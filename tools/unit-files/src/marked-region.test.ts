import { regionMarkers, replaceRegion } from './marked-region';

const [begin, end] = regionMarkers('stages');

test('replaces only what is between the markers, which stay', () => {
  const text = ['before', `  ${begin}`, 'old', 'older', `  ${end}`, 'after'].join('\n');
  expect(replaceRegion(text, 'Dockerfile', 'stages', ['new'])).toBe(['before', `  ${begin}`, 'new', `  ${end}`, 'after'].join('\n'));
});

test('a file without the region says which markers to add, and where', () => {
  expect(() => replaceRegion('before\nafter', 'Dockerfile', 'stages', ['new'])).toThrow(`Dockerfile has no generated region "stages"`);
  expect(() => replaceRegion(`${begin}\nno end`, 'Dockerfile', 'stages', ['new'])).toThrow(end);
});
