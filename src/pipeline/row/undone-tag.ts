/**
 * The tag `undo` puts on a contact an undone run created (the API cannot delete it), so that it can
 * be found and deleted in the platform's interface (docs/undo.md). A later run whose row takes the
 * contact back removes it again (`decide.ts`): a user deleting by the tag must find only contacts
 * no file wants.
 */
export const UNDONE_TAG = 'contact-sync-undone';
