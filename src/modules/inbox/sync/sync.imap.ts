/**
 * Reading a mailbox over IMAP (imapflow): a message's envelope and body
 * structure first, then each attachment streamed from the server as it is
 * decoded, so that no message is ever held whole in memory, whatever its
 * size (an attachment over the upload limit is not downloaded at all). The
 * server's address is checked as webhook receivers are:
 * the name is resolved once, the address judged, and that very address
 * connected to (TLS still verifies the name), so DNS rebinding cannot move
 * the connection onto the machine or its network.
 */
import net from 'node:net';
import type { Readable } from 'node:stream';
import { ImapFlow, type MessageStructureObject } from 'imapflow';
import { resolveOutbound } from '../../../lib/outbound.js';

export interface MailboxAddress {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  mailbox: string;
}

export interface MailAttachment {
  /** The body part, to download it. */
  part: string;
  fileName: string | undefined;
  contentType: string;
  /** Decoded bytes, as the body structure tells them (base64 takes 4 bytes for 3). */
  size: number;
}

export interface MailMessage {
  uid: number;
  messageId: string;
  from: string | undefined;
  attachments: MailAttachment[];
}

/** Something about the mailbox a person must fix (address, password, mailbox name), in words for `lastError`. */
export class MailboxProblem extends Error {}

export interface OpenMailbox {
  uidValidity: bigint;
  /** UIDs above `afterUid`, oldest first, from `sender` when given, at most `limit`. */
  newUids(afterUid: number, sender: string | null, limit: number): Promise<number[]>;
  /** One message's envelope and attachments; undefined when it is gone. */
  message(uid: number): Promise<MailMessage | undefined>;
  /** An attachment's decoded bytes as they arrive, at most `maxBytes`; read it to its end before the next call. */
  download(uid: number, part: string, maxBytes: number): Promise<Readable | undefined>;
  close(): Promise<void>;
}

/** Connects, signs in and opens the mailbox read-only. */
export async function openMailbox(address: MailboxAddress, { allowPrivate }: { allowPrivate: boolean }): Promise<OpenMailbox> {
  const resolved = await resolveOutbound(address.host, { allowPrivate });
  if ('problem' in resolved) throw new MailboxProblem(`The IMAP server ${address.host} ${resolved.problem}`);
  const target = resolved.address;
  const client = new ImapFlow({
    host: target,
    port: address.port,
    secure: address.secure,
    // TLS verifies the name the user gave, though the connection goes to the address checked above.
    servername: net.isIP(address.host) === 0 ? address.host : false,
    auth: { user: address.username, pass: address.password },
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
    disableAutoIdle: true,
  } as ConstructorParameters<typeof ImapFlow>[0]);
  // Errors on an idle socket surface through the awaited calls; an unhandled 'error' event would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    const failed = error as { authenticationFailed?: boolean; code?: string; message?: string };
    client.close();
    if (failed.authenticationFailed) throw new MailboxProblem(`The IMAP server refused the username or password (${address.username})`);
    throw new MailboxProblem(`Cannot connect to the IMAP server ${address.host}:${address.port}: ${failed.code ?? failed.message ?? String(error)}`);
  }
  let uidValidity: bigint;
  try {
    const opened = await client.mailboxOpen(address.mailbox, { readOnly: true });
    uidValidity = BigInt(opened.uidValidity);
  } catch (error) {
    await client.logout().catch(() => client.close());
    throw new MailboxProblem(`The mailbox "${address.mailbox}" cannot be opened: ${(error as Error).message}`);
  }
  return {
    uidValidity,
    async newUids(afterUid, sender, limit) {
      // `n:*` always matches the newest message, even when its UID is below n: filter again.
      const found = await client.search({ uid: `${afterUid + 1}:*`, ...(sender ? { from: sender } : {}) }, { uid: true });
      return (found || [])
        .filter((uid) => uid > afterUid)
        .sort((a, b) => a - b)
        .slice(0, limit);
    },
    async message(uid) {
      const fetched = await client.fetchOne(String(uid), { uid: true, envelope: true, bodyStructure: true }, { uid: true });
      if (!fetched || !fetched.bodyStructure) return undefined;
      return {
        uid,
        messageId: fetched.envelope?.messageId ?? `<uid-${uidValidity}-${uid}@${address.host}>`,
        from: fetched.envelope?.from?.[0]?.address,
        // A message of one part has its body as part 1.
        attachments: attachmentsOf({ ...fetched.bodyStructure, part: fetched.bodyStructure.part ?? (fetched.bodyStructure.childNodes ? undefined : '1') }),
      };
    },
    async download(uid, part, maxBytes) {
      const downloaded = await client.download(String(uid), part, { uid: true, maxBytes });
      return downloaded.content;
    },
    async close() {
      await client.logout().catch(() => client.close());
    },
  };
}

/**
 * The parts of a message that are files: leaves that are not its text (a
 * part marked as an attachment, or named, or of another type than plain
 * text and HTML), not looking into attached messages.
 */
function attachmentsOf(node: MessageStructureObject): MailAttachment[] {
  if (node.childNodes) return node.childNodes.flatMap(attachmentsOf);
  const fileName = node.dispositionParameters?.filename ?? node.parameters?.name;
  const isText = ['text/plain', 'text/html'].includes(node.type) && node.disposition !== 'attachment' && !fileName;
  if (!node.part || isText || node.type === 'message/rfc822' || node.type.startsWith('multipart/')) return [];
  const encoded = node.size ?? 0;
  return [{ part: node.part, fileName, contentType: node.type, size: node.encoding?.toLowerCase() === 'base64' ? Math.floor((encoded * 3) / 4) : encoded }];
}
