// A name server on loopback that answers one name with A records, as Docker's DNS answers a
// compose service's name with one address per running replica: Caddy's `dynamic a` upstreams ask
// it (a `resolvers` line) instead of the system's. Only what such a look-up needs: a query of one
// question, A and AAAA, over UDP and TCP (Caddy's resolver dials TCP). Any other name is NXDOMAIN,
// so the resolver's search-domain tries fail as on a compose network.
import dgram from 'node:dgram';
import net from 'node:net';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';

export interface NameServer {
  /** host:port, for a `resolvers` line. */
  address: string;
  close(): Promise<void>;
}

const TYPE_A = 1;
const CLASS_IN = 1;

/** The answer to one DNS query: `addresses` for `name`, no record for its other types. */
function answer(query: Buffer, name: string, addresses: string[]): Buffer {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
    at += query[at] + 1;
  }
  const questionEnd = at + 5;
  const type = query.readUInt16BE(at + 1);
  const known = labels.join('.').toLowerCase() === name;
  const records = known && type === TYPE_A ? addresses : [];
  const header = Buffer.from(query.subarray(0, 12));
  // A response, recursion desired and available; NXDOMAIN (3) for a name it does not know.
  header.writeUInt16BE(known ? 0x8180 : 0x8183, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  header.writeUInt32BE(0, 8);
  const answers = records.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(1, 6); // TTL: 1 s, as short-lived as a replica
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

/** Answers `name` with `addresses` on 127.0.0.1, UDP and TCP, until closed. */
export async function startNameServer(name: string, addresses: string[]): Promise<NameServer> {
  const port = reservePort(30_000, 32_767);
  const udp = dgram.createSocket('udp4');
  udp.on('message', (query, peer) =>
    udp.send(answer(query, name, addresses), peer.port, peer.address),
  );
  // Over TCP each message has a two-byte length before it.
  const tcp = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const reply = answer(pending.subarray(2, 2 + pending.readUInt16BE(0)), name, addresses);
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([length, reply]));
      }
    });
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      releasePort(port);
    },
  };
}
