from numalint.cli import main

main()
