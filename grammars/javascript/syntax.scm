; Syntax above a language level. Each capture is `@esYEAR.feature`: YEAR is the edition
; that introduced it (1999 = ES3, 2009 = ES5, 2015 = ES2015, ...), `feature` the key the
; message names. The captured node is what the finding points at (the offending token).
; Read by `crate::js::query`; the level comes from the corpus's Engine chunk.
;
; Every pattern is rooted at a node that only the feature produces (a token such as
; `=>` or `const`, or a node such as `template_string`): the checker's one walk over the
; tree runs this query only on such nodes, so ES3 code costs nothing here.
; Numbers (`0b1`, `1_000`, `10n`) and trailing commas are judged in `src/check/syntax.rs`
; by their text: they live in nodes every script has.

["let" "const"] @es2015.let_const
(arrow_function "=>" @es2015.arrow_function)
"class" @es2015.class
(template_string) @es2015.template_literal
(object_pattern) @es2015.destructuring
(array_pattern) @es2015.destructuring
(spread_element "..." @es2015.spread)
(rest_pattern "..." @es2015.rest_parameter)
(assignment_pattern "=" @es2015.default_parameter)
"of" @es2015.for_of
(shorthand_property_identifier) @es2015.shorthand_property
(computed_property_name) @es2015.computed_property
(method_definition name: (_) @es2015.method_shorthand)
(method_definition ["get" "set"] @es2009.accessor)
(generator_function_declaration "*" @es2015.generator)
(generator_function "*" @es2015.generator)
"yield" @es2015.generator
["import" "export"] @es2015.module
"**" @es2016.exponent
"**=" @es2016.exponent
["async" "await"] @es2017.async
"??" @es2020.nullish
(optional_chain) @es2020.optional_chain
["??=" "||=" "&&="] @es2021.logical_assignment
(regex flags: (regex_flags) @regex_flags)
