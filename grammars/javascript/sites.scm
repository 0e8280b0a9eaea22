; The places the checker judges, one capture a site. Read by `crate::js::query`.
; Each capture names the node the families inspect; the Rust side reads its fields.

; `receiver.name` — the member family (reads and writes), the engine family
; (`Object.keys`), the object family (a receiver declared nowhere).
(member_expression
  property: (property_identifier)) @site.member

; `name(...)` and `receiver.name(...)` — the function family (bare calls), and the
; option and file families (object literals and string literals passed as arguments).
(call_expression
  arguments: (arguments)) @site.call

; `new Name(...)` — the constructor family.
(new_expression
  constructor: (identifier)) @site.new
