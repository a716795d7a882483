"""One module per foreign trajectory format, each turning a parsed document into the normal form;
`impasse.analysis.importers` reads the file, recognises the format and calls the right one."""
