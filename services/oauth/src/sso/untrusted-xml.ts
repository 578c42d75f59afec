import { DOMParser, type Document, type Element } from '@xmldom/xmldom';

/** SAML's namespaces, by the prefixes docs/sso.md uses. */
export const SAML_NAMESPACES = {
  md: 'urn:oasis:names:tc:SAML:2.0:metadata',
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
  samlp: 'urn:oasis:names:tc:SAML:2.0:protocol',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

const ELEMENT_NODE = 1;

/** Why a document from outside was refused before or while parsing; says nothing of its content. */
export class UntrustedXmlError extends Error {
  override readonly name = 'UntrustedXmlError';
}

/**
 * A DOCTYPE is the door to entity expansion (billion laughs) and external
 * entities (XXE). No SAML message or metadata needs one (SAML 2.0 Bindings
 * §3.5.4 forbids DTDs in messages), so any is refused before a parser sees
 * the text, whatever the parser would do with it.
 */
const DOCTYPE_OR_ENTITY = /<!\s*(?:DOCTYPE|ENTITY)/i;

/**
 * Parses XML that came from outside (IdP metadata pasted by an
 * administrator, a SAML response posted by a browser): refused when over
 * `maxBytes`, when it declares a DOCTYPE or an entity, or when it is not
 * well-formed; answers the root element. Parser warnings count as errors: a document a lenient parser
 * repairs may be read differently by the signature check.
 */
export function parseUntrustedXml(text: string, maxBytes: number): Element {
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw new UntrustedXmlError(`the document is over ${maxBytes} bytes`);
  if (DOCTYPE_OR_ENTITY.test(text)) throw new UntrustedXmlError('the document declares a DOCTYPE or an entity');
  let problems = 0;
  let document: Document;
  try {
    document = new DOMParser({
      onError: () => {
        problems += 1;
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    throw new UntrustedXmlError('the document is not well-formed XML', { cause: error });
  }
  const root = document.documentElement;
  if (problems > 0 || root === null) throw new UntrustedXmlError('the document is not well-formed XML');
  return root;
}

/** The child elements of `parent` with this namespace and local name, in document order. */
export function childElements(parent: Element | Document, namespace: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (isElement(node)) {
      const element = node;
      if (element.namespaceURI === namespace && element.localName === localName) found.push(element);
    }
  }
  return found;
}

function isElement(node: { readonly nodeType: number }): node is Element {
  return node.nodeType === ELEMENT_NODE;
}

/** The single child element of that name; undefined when there is none, refused when there are several. */
export function singleChild(parent: Element | Document, namespace: string, localName: string): Element | undefined {
  const found = childElements(parent, namespace, localName);
  if (found.length > 1) throw new UntrustedXmlError(`more than one ${localName}`);
  return found[0];
}

/** An element's text, trimmed: every text node under it joined, as canonicalisation (and so the signature) sees it. */
export function textOf(element: Element): string {
  return (element.textContent ?? '').trim();
}
