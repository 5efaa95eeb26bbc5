/**
 * Limits of the Contacts and Messaging API v1 (spec section 8). Every part of the code that
 * chunks, checks or emulates a limit reads it from here, so a change of the platform is one edit.
 */

/** Custom field assignments accepted by one create or update call. */
export const MAX_FIELDS_PER_CALL = 30;
/** Tags accepted by one add-tags or remove-tags call. */
export const MAX_TAGS_PER_CALL = 10;
/** Quick replies accepted in one message. */
export const MAX_QUICK_REPLIES = 10;
/** Characters of one quick reply. */
export const MAX_QUICK_REPLY_LENGTH = 20;
/** Contacts per page of `GET /v1/contact/by_custom_field`. */
export const SEARCH_PAGE_SIZE = 10;
/** Messages per send call. */
export const MAX_MESSAGES_PER_CALL = 1;

/** Attachment types of the Messages API (operation 8). */
export const ATTACHMENT_TYPES = ['image', 'video', 'audio', 'file'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

/** A rate: at most `limit` calls in any window of `periodMs` milliseconds. */
export interface Rate {
  readonly limit: number;
  readonly periodMs: number;
}

/** Contacts API: 100 calls per minute per channel token (spec section 8). */
export const DEFAULT_CONTACTS_RATE: Rate = { limit: 100, periodMs: 60_000 };
/** Messages API: 25 requests per second per channel token (spec section 8). */
export const DEFAULT_MESSAGES_RATE: Rate = { limit: 25, periodMs: 1_000 };

/** The two budgets the platform keeps per channel. */
export type ApiGroup = 'contacts' | 'messages';

/**
 * The Developer API v2 (spec/api-v2-notes.md): contacts per page of `POST /contact/list` and of a
 * contact's message list (1 to 100; the SDK's default 10).
 */
export const V2_MAX_PAGE_SIZE = 100;

/**
 * The most bytes of one answer the clients read (issue 42: a 58 MB list page took 1.2 GB): a page
 * of 100 contacts is far below it. A larger answer is cut off as it arrives and fails its call
 * with `MALFORMED_RESPONSE`, never buffered whole.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
export const V2_DEFAULT_PAGE_SIZE = 10;
/** Characters of one tag name in v2's tag calls (the SDK's doc comment); 1 to MAX_TAGS_PER_CALL a call. */
export const V2_MAX_TAG_LENGTH = 255;
/**
 * v2's budget per endpoint (method and path template) per organisation. Unverified: the platform
 * publishes no number; a third-party profile says 5 a second. Clients learn it from the headers.
 */
export const DEFAULT_V2_ENDPOINT_RATE: Rate = { limit: 5, periodMs: 1_000 };
