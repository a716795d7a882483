from impasse.cli.entry import main

main()
