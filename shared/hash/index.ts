/** General hashing utilities that know no domain: a keyed SipHash for compact id tables. */
export { SipHash128 } from "./sip-hash.js";
