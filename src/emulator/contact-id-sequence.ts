/**
 * Contact ids as the platform hands them out: numeric strings from one platform-wide counter,
 * never reused (not even after a reset), so a stale id held by a client never names a new contact.
 */

/** The form of a live id (platform notes): `"1776025372480910"`. */
export const FIRST_CONTACT_ID = 1_776_025_372_480_910;

export class ContactIdSequence {
  private next = FIRST_CONTACT_ID;

  /** The next id for which `taken` is false. */
  allocate(taken: (id: string) => boolean): string {
    let id = String(this.next++);
    while (taken(id)) id = String(this.next++);
    return id;
  }

  /** Keeps generated ids above a numeric id that was loaded from outside. */
  observe(id: string): void {
    if (!/^\d{1,15}$/.test(id)) return;
    const value = Number(id);
    if (value >= this.next) this.next = value + 1;
  }
}
