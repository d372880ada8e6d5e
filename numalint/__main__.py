from numalint.server.launch import main

main()
