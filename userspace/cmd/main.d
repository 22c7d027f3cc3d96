/work/main/userspace/cmd/main.o: /work/main/userspace/cmd/main.c \
 /work/main/userspace/include/nanograph.h /work/main/userspace/cmd/cmd.h
/work/main/userspace/include/nanograph.h:
/work/main/userspace/cmd/cmd.h:
