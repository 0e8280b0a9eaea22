; What the scope analysis reads (`crate::js::Analysis`): the nodes that open scopes,
; declare names, assign them, narrow them or test them with `typeof`. Captures come in
; document order, so a scope is open before anything inside it is seen.

; Scopes: functions of every form (parameters included) and catch clauses.
(function_declaration) @scope
(generator_function_declaration) @scope
(function_expression) @scope
(generator_function) @scope
(arrow_function) @scope
(method_definition) @scope
(catch_clause) @scope

; `with (obj) { ... }`: inside, any bare name may be a member of `obj`.
(with_statement) @scope

; Declarations: parameters, `var`/`let`/`const`, classes.
(formal_parameters) @declare
(variable_declarator) @declare
(class_declaration) @declare
(lexical_declaration) @declare

; Modules: an import binds names; `export ... from` asks names of a module.
(import_statement) @declare
(export_statement) @declare

; Writes: what every assignment of a variable is decides whether its type is certain.
(assignment_expression) @write
(augmented_assignment_expression) @write
(update_expression) @write
(for_in_statement) @write

; Narrowing (`x instanceof T`, `x.constructor`) and feature detection (`typeof x`),
; rooted at the operator token: the walk looks at the expression around it only when
; the token is there.
"instanceof" @narrow
"typeof" @typeof
