// @trpc/client 11.25.2's declarations name the DOM's `RequestInfo` (its fetch type); a Node-only project (lib
// ES2023, no DOM) declares it. docevals's own declarations need nothing of the kind.
type RequestInfo = string | URL | Request;
