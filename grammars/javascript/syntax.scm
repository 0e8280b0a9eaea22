; Syntax above a language level. Each capture is `@esYEAR.feature`: YEAR is the edition
; that introduced it (1999 = ES3, 2009 = ES5, 2015 = ES2015, ...), `feature` the key the
; message names. The captured node is what the finding points at (the offending token).
; Read by `crate::js::query`; the level comes from the corpus's Engine chunk.

(lexical_declaration kind: _ @es2015.let_const)
(for_in_statement kind: ["let" "const"] @es2015.let_const)
(arrow_function "=>" @es2015.arrow_function)
(class_declaration "class" @es2015.class)
(class "class" @es2015.class)
(template_string) @es2015.template_literal
(object_pattern) @es2015.destructuring
(array_pattern) @es2015.destructuring
(spread_element "..." @es2015.spread)
(rest_pattern "..." @es2015.rest_parameter)
(formal_parameters (assignment_pattern "=" @es2015.default_parameter))
(for_in_statement operator: "of" @es2015.for_of)
(object (shorthand_property_identifier) @es2015.shorthand_property)
(computed_property_name) @es2015.computed_property
(object (method_definition name: (_) @es2015.method_shorthand))
(generator_function_declaration "*" @es2015.generator)
(generator_function "*" @es2015.generator)
(yield_expression "yield" @es2015.generator)
(import_statement "import" @es2015.module)
(export_statement "export" @es2015.module)
(binary_expression operator: "**" @es2016.exponent)
(augmented_assignment_expression operator: "**=" @es2016.exponent)
(await_expression "await" @es2017.async)
(function_declaration "async" @es2017.async)
(function_expression "async" @es2017.async)
(arrow_function "async" @es2017.async)
(binary_expression operator: "??" @es2020.nullish)
(augmented_assignment_expression operator: ["??=" "||=" "&&="] @es2021.logical_assignment)
(optional_chain) @es2020.optional_chain
(object (method_definition ["get" "set"] @es2009.accessor))
(regex flags: (regex_flags) @regex_flags)
(number) @number
(object) @trailing.object
(arguments) @trailing.arguments
(formal_parameters) @trailing.parameters
