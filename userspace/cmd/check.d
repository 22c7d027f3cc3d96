/work/main/userspace/cmd/check.o: /work/main/userspace/cmd/check.c \
 /work/main/userspace/include/nanograph.h /work/main/userspace/cmd/cmd.h
/work/main/userspace/include/nanograph.h:
/work/main/userspace/cmd/cmd.h:
