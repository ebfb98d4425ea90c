# Writes OUTPUT, a C++ file defining carc::kBuiltinCatalogueText with the contents of INPUT.
file(READ ${INPUT} text)
file(WRITE ${OUTPUT} "// Generated from engine/data/tiles.txt. Do not edit.\nnamespace carc {\nextern const char* const kBuiltinCatalogueText;\nconst char* const kBuiltinCatalogueText = R\"CATALOGUE(${text})CATALOGUE\";\n}  // namespace carc\n")
