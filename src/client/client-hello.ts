// What a TLS client offered, read from the first bytes of its connection (RFC 8446 §4.1.2): the
// versions (supported_versions, else legacy_version) and the cipher suites. Read from the wire
// rather than from Node's TLS server, which only says what was agreed, never what was offered.

export interface OfferedTls {
  /** False when the bytes were no TLS handshake (plain HTTP) or too short to read. */
  tls: boolean;
  versions: string[];
  suites: string[];
}

const VERSION_NAMES: Record<number, string> = {
  0x0304: 'TLSv1.3',
  0x0303: 'TLSv1.2',
  0x0302: 'TLSv1.1',
  0x0301: 'TLSv1',
  0x0300: 'SSLv3',
};

const SUITE_NAMES: Record<number, string> = {
  0x1301: 'TLS_AES_128_GCM_SHA256',
  0x1302: 'TLS_AES_256_GCM_SHA384',
  0x1303: 'TLS_CHACHA20_POLY1305_SHA256',
  0x1304: 'TLS_AES_128_CCM_SHA256',
  0x1305: 'TLS_AES_128_CCM_8_SHA256',
  0x00ff: 'TLS_EMPTY_RENEGOTIATION_INFO_SCSV',
};

/** RFC 8701 GREASE values (0x0a0a, 0x1a1a, …) say nothing about the client; they are left out. */
const isGrease = (v: number): boolean => (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 0xff);

const hex = (v: number): string => `0x${v.toString(16).padStart(4, '0')}`;
const versionName = (v: number): string => VERSION_NAMES[v] ?? hex(v);
const suiteName = (v: number): string => SUITE_NAMES[v] ?? hex(v);

const NOT_TLS: OfferedTls = { tls: false, versions: [], suites: [] };
const SUPPORTED_VERSIONS = 0x002b;

export function readClientHello(bytes: Buffer): OfferedTls {
  // Record header (type 22 handshake), then the handshake header (type 1 ClientHello).
  if (bytes.length < 9 || bytes[0] !== 0x16 || bytes[5] !== 0x01) return NOT_TLS;
  const u16 = (at: number) => bytes.readUInt16BE(at);
  try {
    let at = 9;
    const legacyVersion = u16(at);
    at += 2 + 32;
    at += 1 + bytes[at]!; // session id
    const suitesLength = u16(at);
    at += 2;
    const suites: string[] = [];
    for (let i = 0; i < suitesLength; i += 2) if (!isGrease(u16(at + i))) suites.push(suiteName(u16(at + i)));
    at += suitesLength;
    at += 1 + bytes[at]!; // compression methods
    let versions = [versionName(legacyVersion)];
    if (at + 2 <= bytes.length) {
      const end = Math.min(bytes.length, at + 2 + u16(at));
      at += 2;
      while (at + 4 <= end) {
        const type = u16(at);
        const length = u16(at + 2);
        if (type === SUPPORTED_VERSIONS) {
          const listed: string[] = [];
          for (let i = 1; i < bytes[at + 4]!; i += 2)
            if (!isGrease(u16(at + 4 + i))) listed.push(versionName(u16(at + 4 + i)));
          versions = listed;
        }
        at += 4 + length;
      }
    }
    return { tls: true, versions, suites };
  } catch {
    // A hello cut short by the first TCP segment: what it is cannot be told, so say not TLS-readable.
    return NOT_TLS;
  }
}
